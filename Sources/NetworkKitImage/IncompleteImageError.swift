import NetworkKit

/// Why strict decoding (``ImageDecodingOptions/isStrict``) refused a file whose pixel data ends
/// early or is damaged: the `underlying` error of the `ParseError` (kind `image`) it throws.
///
/// ```swift
/// catch let error as ParseError where error.underlying is IncompleteImageError { … }
/// ```
public struct IncompleteImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The format of the file.
    public let format: ImageFormat
    /// The decoder's own words, such as `Corrupt JPEG data: premature end of data segment`.
    public let reason: String

    /// Creates the error, for codecs of your own that decode strictly.
    public init(format: ImageFormat, reason: String) {
        self.format = format
        self.reason = reason
    }

    /// `incomplete jpeg data: <reason>`.
    public var description: String { "incomplete \(format) data: \(reason)" }

    /// The `ParseError` a codec throws for this error: kind `image`, this as `underlying`.
    var parseError: ParseError {
        ParseError(parser: "image", reason: "\(description) (refused by strict decoding)", kind: .image, underlying: self)
    }
}
