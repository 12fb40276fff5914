/// Why a parser rejected a response.
public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure it was, for code that reacts to failures without reading sentences.
    public enum Kind: String, Sendable, Equatable {
        /// The body is not valid in its format: broken JSON, bytes that are not the charset.
        case malformed
        /// A key path led nowhere: a missing key, an index out of range, a value that is not a container.
        case keyPath
        /// The content does not have the `JSONShape` the parser requires.
        case shape
        /// There was no body where one is needed.
        case emptyBody
        /// The `Content-Type` is not one the parser accepts.
        case contentType
        /// The content could not be turned into the model type.
        case model
        /// The image could not be decoded.
        case image
        /// A limit was exceeded: decompressed size, pixel count.
        case limit
        /// A parser of your own threw an error of its own: see `underlying`.
        case custom
        /// Anything else.
        case other
    }

    /// The parser that failed, such as `"json"`, `"model"`, `"string"`, `"image"`.
    public var parser: String
    /// A sentence saying what was wrong.
    public var reason: String
    /// The key path being read when it failed, if any.
    public var keyPath: String?
    /// What kind of failure it was.
    public var kind: Kind
    /// The error behind this one, such as a custom parser's own error or a `DecodingError`.
    public var underlying: (any Error)?

    /// Creates a parse error.
    public init(parser: String, reason: String, keyPath: String? = nil, kind: Kind = .other, underlying: (any Error)? = nil) {
        self.parser = parser
        self.reason = reason
        self.keyPath = keyPath
        self.kind = kind
        self.underlying = underlying
    }

    /// `json parser: reason (at key path content/entrance)`.
    public var description: String {
        var text = "\(parser) parser: \(reason)"
        if let keyPath { text += " (at key path \(keyPath))" }
        return text
    }

    /// Equal when parser, reason, key path and kind are (the underlying error is not compared).
    public static func == (lhs: ParseError, rhs: ParseError) -> Bool {
        lhs.parser == rhs.parser && lhs.reason == rhs.reason && lhs.keyPath == rhs.keyPath && lhs.kind == rhs.kind
    }
}
