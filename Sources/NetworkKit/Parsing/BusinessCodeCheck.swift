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

/// The business code and message of a successful answer read through an envelope (DYNetwork's
/// response object): `{"code": 0, "message": "ok", "data": {...}}` gives the value from `data`,
/// and this gives `0` and `"ok"`.
///
/// The kit's JSON and model parsers record it as they check the code
/// (``ResponseEnvelope``, ``JSONParser/businessCode``, ``ResponseValidation/businessCode``), so it costs no second parse. Read it from
/// `Reply.businessStatus` or ``AnyRequest/businessStatus``; the value stays what `send` returns.
public struct BusinessStatus: Sendable, Equatable {
    /// The code found at the check's code key path.
    public var code: JSON
    /// The message found at the check's first message key path that has one, if any.
    public var message: String?

    /// A status from its parts.
    package init(code: JSON, message: String?) {
        self.code = code
        self.message = message
    }
}

/// Where the parsers of one response note what they found besides the value: the business
/// status of an envelope they checked. One per parse, shared by the copies of its `Response`.
final class ParseNotes: Sendable {
    private let status = Protected<BusinessStatus?>(nil)

    /// Keeps `found`; the last one recorded wins (the outermost parser records last).
    func record(_ found: BusinessStatus) {
        status.withLock { $0 = found }
    }

    /// What was recorded, if anything.
    var businessStatus: BusinessStatus? {
        status.snapshot
    }
}
