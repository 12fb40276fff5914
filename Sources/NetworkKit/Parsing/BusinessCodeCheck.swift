import Foundation

/// Where a service's answers keep their business code, which values mean success, and where
/// the message of a failure is.
public struct BusinessCodeCheck: Sendable, Equatable {
    /// Where the code is; an answer without it fails (`parse`, kind `keyPath`).
    public var codeKeyPath: JSONKeyPath
    /// The codes that mean success (`0` and `"0"` match alike).
    public var okValues: [JSON]
    /// Where a failure's message may be, tried in order.
    public var messageKeyPaths: [JSONKeyPath]

    /// Creates a check.
    public init(codeKeyPath: JSONKeyPath, okValues: [JSON] = [0], messageKeyPaths: [JSONKeyPath] = ["message", "msg"]) {
        self.codeKeyPath = codeKeyPath
        self.okValues = okValues
        self.messageKeyPaths = messageKeyPaths
    }

    /// The code and message of a success.
    /// - Throws: `NetworkError.businessCode` when the code is not one of ``okValues``, a
    ///   `ParseError` (naming the response validation, which runs this check) when there is no
    ///   code.
    @discardableResult
    public func check(_ json: JSON) throws -> BusinessStatus {
        try check(json, parser: Self.validationName)
    }

    /// The name a failure of ``check(_:)`` carries as its parser's: the response validation's.
    static let validationName = "response validation"

    /// The same, with `parser` named in a `ParseError` (`JSONParser` checks its code with it too).
    func check(_ json: JSON, parser: String) throws -> BusinessStatus {
        let code = try json.value(at: codeKeyPath, parser: parser)
        let found = messageKeyPaths.lazy.compactMap { try? json.value(at: $0) }.first
        let message = found.map { $0.stringValue ?? $0.description }
        guard okValues.contains(where: { code.matchesCode($0) }) else {
            throw NetworkError.businessCode(code: code, message: message)
        }
        return BusinessStatus(code: code, message: message)
    }
}
