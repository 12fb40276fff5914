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
