import Foundation

/// Checks every response of a service before it is parsed (DYNetwork's service-wide check):
/// its status, its content type, keys or a shape its JSON must have, a business code, and rules
/// of your own. Set it once in ``ServiceConfiguration/responseValidation``; a request leaves it
/// out with ``ServiceDefaults/responseValidation``.
///
/// ```swift
/// configuration.responseValidation = ResponseValidation(
///     acceptableContentTypes: ["application/json", "+json"],
///     requiredKeyPaths: ["code"],
///     businessCode: BusinessCodeCheck(codeKeyPath: "code", okValues: [0, 200], messageKeyPaths: ["msg", "error/message"])
/// )
/// ```
///
/// The checks run in this order and the first that fails fails the request, before its parser
/// runs and before anything is cached:
/// 1. the status must be in ``acceptableStatusCodes`` (as well as in the request's own
///    `acceptableStatusCodes`): otherwise `NetworkError.httpStatus`;
/// 2. a body's media type must be one of ``acceptableContentTypes``: otherwise
///    `NetworkError.parse` of kind `contentType`;
/// 3. the body is read as JSON once, if a check below needs it (`parse` of kind `malformed`
///    when it is not JSON); the business code must be one of the ok values
///    (`NetworkError.businessCode` with the message found); every required key path must be
///    there (`parse`, kind `keyPath`); the document must have ``shape`` (`parse`, kind `shape`);
/// 4. each of ``rules`` in order: what it throws fails the request (a `NetworkError` as it is,
///    another error as `parse` of kind `custom`).
///
/// Streams are checked on their status alone, before any item is delivered; downloads to disk
/// on their status and content type. Body checks do not apply to answers without a body: a 204
/// or 205, and the answer to a HEAD request.
public struct ResponseValidation: Sendable {
    /// A check of your own; throwing fails the request.
    public typealias Rule = @Sendable (Response) throws -> Void

    /// The statuses every answer must have; nil leaves it to each request's own
    /// `acceptableStatusCodes`.
    public var acceptableStatusCodes: Range<Int>?
    /// Media types a body may have (`application/json`, `text/*`, `+json`); empty accepts any.
    public var acceptableContentTypes: Set<String>
    /// Key paths that must be in every JSON answer.
    public var requiredKeyPaths: [JSONKeyPath]
    /// The shape every JSON answer must have.
    public var shape: JSONShape?
    /// Where the business code is and which values mean success.
    public var businessCode: BusinessCodeCheck?
    /// Checks of your own, run last, in order.
    public var rules: [Rule]

    /// Creates a validation; every check is off by default.
    public init(acceptableStatusCodes: Range<Int>? = nil, acceptableContentTypes: Set<String> = [],
                requiredKeyPaths: [JSONKeyPath] = [], shape: JSONShape? = nil,
                businessCode: BusinessCodeCheck? = nil, rules: [Rule] = []) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.requiredKeyPaths = requiredKeyPaths
        self.shape = shape
        self.businessCode = businessCode
        self.rules = rules
    }

    /// Runs every check on `response`; the body checks only when `checksBody` (false for a
    /// download's file and the answer to a HEAD request).
    /// - Throws: the first failure, as the type's documentation says.
    package func validate(_ response: Response, checksBody: Bool = true) throws(NetworkError) {
        if let acceptableStatusCodes, !acceptableStatusCodes.contains(response.status.code) {
            throw .httpStatus(code: response.status.code, body: response.data, headerFields: response.headerFields)
        }
        let hasBody = checksBody && ![204, 205].contains(response.status.code)
        if !acceptableContentTypes.isEmpty, !response.data.isEmpty || !checksBody {
            do {
                try MediaTypeList.require(acceptableContentTypes, of: response, parser: Self.name)
            } catch {
                throw .parse(error)
            }
        }
        if hasBody, businessCode != nil || !requiredKeyPaths.isEmpty || shape != nil {
            try checkDocument(of: response)
        }
        for rule in rules {
            do {
                try rule(response)
            } catch {
                throw (error as? NetworkError) ?? .parse(ParseError(parser: Self.name, reason: "\(error)", kind: .custom,
                                                                    underlying: error))
            }
        }
    }

    /// Step 3: the JSON checks.
    private func checkDocument(of response: Response) throws(NetworkError) {
        do {
            let json = try JSON(data: response.data)
            if let status = try businessCode?.check(json) { response.notes?.record(status) }
            for path in requiredKeyPaths { _ = try json.value(at: path, parser: Self.name) }
            try shape?.validate(json)
        } catch let error as ParseError {
            throw .parse(ParseError(parser: Self.name, reason: error.reason, keyPath: error.keyPath, kind: error.kind))
        } catch {
            throw NetworkError.wrap(error)
        }
    }

    /// The name failures carry as their parser's.
    static let name = BusinessCodeCheck.validationName
}

