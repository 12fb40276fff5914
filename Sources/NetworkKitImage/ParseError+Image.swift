import NetworkKit

extension ParseError {
    /// An error of the image parser: an image that cannot be decoded, or (`kind: .limit`) one
    /// over a size limit.
    static func image(_ reason: String, kind: Kind = .image) -> ParseError {
        ParseError(parser: "image", reason: reason, kind: kind)
    }
}
