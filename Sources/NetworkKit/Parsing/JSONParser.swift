import Foundation

/// Parses the body as JSON, optionally checks a business code, and returns the content
/// at a key path.
///
/// ```swift
/// // {"code": 0, "message": "ok", "content": {"entrance": [...]}}
/// JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")
/// ```
/// A code that is not one of the check's `okValues` fails with `NetworkError.businessCode`,
/// carrying the code and the message found at the check's `messageKeyPaths`. `0` and `"0"` are
/// the same code.
public struct JSONParser: ResponseParser {
    /// Where the business code is and which codes mean success; nil checks none (or the
    /// service's ``ResponseEnvelope``'s, see ``usesServiceEnvelope``).
    public var businessCode: BusinessCodeCheck?
    /// The part of the document to return, e.g. `content/entrance`; nil returns all of it.
    public var contentKeyPath: JSONKeyPath?
    /// Media types accepted (`application/json`, `text/*`, or a suffix such as `+json`); nil
    /// accepts any.
    public var acceptableContentTypes: Set<String>?
    /// The shape the content must have, checked before it is returned; nil checks nothing.
    public var shape: JSONShape?
    /// Whether key paths left unset come from the service's `ResponseEnvelope` (true by default).
    public var usesServiceEnvelope = true

    /// Creates a JSON parser; with no arguments it parses the whole body and checks nothing.
    public init(
        businessCode: BusinessCodeCheck? = nil,
        contentKeyPath: JSONKeyPath? = nil,
        acceptableContentTypes: Set<String>? = nil,
        shape: JSONShape? = nil
    ) {
        self.businessCode = businessCode
        self.contentKeyPath = contentKeyPath
        self.acceptableContentTypes = acceptableContentTypes
        self.shape = shape
    }

    /// Light: a small body parses in microseconds.
    public var isLightweight: Bool { true }

    /// The checked content (with the service's envelope applied, see ``usesServiceEnvelope``).
    public func parse(_ response: Response) throws -> JSON {
        let parser = applying(response.envelope)
        return try parser.content(of: parser.document(of: response))
    }

    /// The whole document, parsed and with its business code checked.
    func document(of response: Response) throws -> JSON {
        try validateBody(of: response)
        let json: JSON
        do {
            json = try JSON(data: response.data)
        } catch let error as ParseError {
            let type = response.mimeType.map { ", Content-Type \($0)" } ?? ""
            throw ParseError(parser: "json",
                             reason: "\(error.reason)\(type); body starts \"\(NetworkError.preview(response.data, limit: 60))\"",
                             kind: error.kind)
        }
        if let status = try checkCode(in: json) { response.notes?.record(status) }
        return json
    }

    /// The value at `contentKeyPath` (the document itself when nil), checked against `shape`.
    func content(of document: JSON) throws -> JSON {
        let content = try contentKeyPath.map { try document.value(at: $0) } ?? document
        try shape?.validate(content)
        return content
    }

    /// Throws `NetworkError.businessCode` when ``businessCode`` fails; returns the code and
    /// message of a success (nil when there is no code to check).
    @discardableResult
    func checkCode(in json: JSON) throws -> BusinessStatus? {
        try businessCode?.check(json, parser: "json")
    }

    /// Throws when the body is empty or its `Content-Type` is not acceptable.
    func validateBody(of response: Response) throws {
        guard !response.data.isEmpty else {
            throw ParseError(parser: "json", reason: "empty body (status \(response.status.code))", kind: .emptyBody)
        }
        guard let acceptable = acceptableContentTypes else { return }
        try MediaTypeList.require(acceptable, of: response, parser: "json")
    }
}

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
