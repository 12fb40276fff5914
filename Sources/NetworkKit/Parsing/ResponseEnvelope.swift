/// Where a service's JSON answers keep their business code, message and content (DYNetwork's
/// `responseCodeKey`, `responseMessageKey` and `responseContentDataKey`). Set once in
/// `ServiceConfiguration/envelope`, every `JSONParser` and `ModelParser` of the service checks
/// the code and reads the content there, unless the parser sets its own key paths or says
/// `usesServiceEnvelope = false`.
///
/// ```swift
/// // {"code": 0, "message": "ok", "data": {...}}
/// configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
///                                           contentKeyPath: "data")
/// ```
public struct ResponseEnvelope: Sendable, Equatable {
    /// Where the business code is, which codes mean success, and where a failure's message is.
    public var businessCode: BusinessCodeCheck
    /// Where the content is; nil is the whole document.
    public var contentKeyPath: JSONKeyPath?

    /// Creates an envelope description.
    public init(businessCode: BusinessCodeCheck, contentKeyPath: JSONKeyPath? = nil) {
        self.businessCode = businessCode
        self.contentKeyPath = contentKeyPath
    }
}

extension JSONParser {
    /// This parser with the check and the content key path it leaves unset taken from
    /// `envelope` (when it uses the service's envelope and has no code check of its own).
    func applying(_ envelope: ResponseEnvelope?) -> JSONParser {
        guard usesServiceEnvelope, let envelope, businessCode == nil else { return self }
        var parser = self
        parser.businessCode = envelope.businessCode
        parser.contentKeyPath = contentKeyPath ?? envelope.contentKeyPath
        return parser
    }
}
