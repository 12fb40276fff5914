/// Why a parser rejected a response.
public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The parser that failed, such as `"json"`, `"model"`, `"string"`, `"image"`.
    public var parser: String
    /// A sentence saying what was wrong.
    public var reason: String
    /// The key path being read when it failed, if any.
    public var keyPath: String?

    /// Creates a parse error.
    public init(parser: String, reason: String, keyPath: String? = nil) {
        self.parser = parser
        self.reason = reason
        self.keyPath = keyPath
    }

    /// `json parser: reason (at key path content/entrance)`.
    public var description: String {
        var text = "\(parser) parser: \(reason)"
        if let keyPath { text += " (at key path \(keyPath))" }
        return text
    }
}
