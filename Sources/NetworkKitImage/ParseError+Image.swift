import NetworkKit

extension ParseError {
    /// An error of the image parser.
    static func image(_ reason: String) -> ParseError {
        ParseError(parser: "image", reason: reason)
    }
}
