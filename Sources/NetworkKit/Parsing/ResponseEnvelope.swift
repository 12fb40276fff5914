/// Where a service's JSON answers keep their business code, message and content (DYNetwork's
/// `responseCodeKey`, `responseMessageKey` and `responseContentDataKey`). Set once in
/// `ServiceConfiguration/envelope`, every `JSONParser` and `ModelParser` of the service checks
/// the code and reads the content there, unless the parser sets its own key paths or says
/// `usesServiceEnvelope = false`.
///
/// ```swift
/// // {"code": 0, "message": "ok", "data": {...}}
/// configuration.envelope = ResponseEnvelope(codeKeyPath: "code", okValue: 0,
///                                           messageKeyPath: "message", contentKeyPath: "data")
/// ```
public struct ResponseEnvelope: Sendable, Equatable {
    /// Where the business code is.
    public var codeKeyPath: JSONKeyPath
    /// The code that means success (`0` and `"0"` match alike).
    public var okValue: JSON
    /// Where the error message is; nil tries `message`, then `msg`.
    public var messageKeyPath: JSONKeyPath?
    /// Where the content is; nil is the whole document.
    public var contentKeyPath: JSONKeyPath?

    /// Creates an envelope description.
    public init(codeKeyPath: JSONKeyPath, okValue: JSON = 0, messageKeyPath: JSONKeyPath? = nil,
                contentKeyPath: JSONKeyPath? = nil) {
        self.codeKeyPath = codeKeyPath
        self.okValue = okValue
        self.messageKeyPath = messageKeyPath
        self.contentKeyPath = contentKeyPath
    }
}

extension JSONParser {
    /// This parser with the key paths it leaves unset taken from `envelope` (when it uses the
    /// service's envelope and has no code check of its own).
    public func applying(_ envelope: ResponseEnvelope?) -> JSONParser {
        guard usesServiceEnvelope, let envelope, checkKeyPath == nil else { return self }
        var parser = self
        parser.checkKeyPath = envelope.codeKeyPath
        parser.okValue = envelope.okValue
        parser.messageKeyPath = messageKeyPath ?? envelope.messageKeyPath
        parser.contentKeyPath = contentKeyPath ?? envelope.contentKeyPath
        return parser
    }
}
