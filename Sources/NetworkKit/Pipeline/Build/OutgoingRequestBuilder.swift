import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request before it is encoded into an ``OutgoingRequest``: where it goes and what it carries, as the
/// request said, for the `RequestInterceptor/prepare(_:context:)` step of every interceptor.
///
/// After the interceptors have prepared it, the draft is encoded: its target must then be an
/// absolute URL; its parameters go into the query, or into the body when the request's `body` is
/// `.form` or `.json`; its header fields are sent after the kit's, replacing those of the same name.
public struct RequestDraft: Sendable {
    /// Where the request goes; the service's environment turns a path into a URL before your interceptors see it.
    public var target: RequestTarget
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The parameters to encode: the request's own, then what interceptors add.
    public var parameters: [String: JSON]
    /// The header fields to send: the request's own, then what interceptors add.
    public var headerFields: HTTPFields
    /// Whether the request asked for its path to be resolved on the CDN URL.
    public let useCDN: Bool

    /// A draft; the kit makes them from requests, tests of an interceptor's `prepare` may too.
    public init(target: RequestTarget, method: HTTPRequest.Method = .get, parameters: [String: JSON] = [:],
                headerFields: HTTPFields = [:], useCDN: Bool = false) {
        self.target = target
        self.method = method
        self.parameters = parameters
        self.headerFields = headerFields
        self.useCDN = useCDN
    }

    /// A draft of what `options` ask for.
    init(_ options: RequestOptions) {
        target = options.target
        method = options.method
        parameters = options.parameters
        headerFields = options.headerFields
        useCDN = options.useCDN
    }
}

/// Encodes a prepared `RequestDraft` into the ``OutgoingRequest`` the interceptors then adapt.
enum OutgoingRequestBuilder {
    /// `body` for `method` once `.automatic` is decided: none where parameters go in the query,
    /// a form otherwise.
    private static func resolvedBody(_ body: RequestBody, for method: HTTPRequest.Method) -> RequestBody {
        guard body == .automatic else { return body }
        return method.encodesParametersInQuery ? .none : .form
    }

    /// The request `draft` describes, with the body `options` ask for: in memory, or none yet
    /// when it is sent from disk (the pipeline names the file, `UploadFile`). `acceptEncoding`
    /// is the `Accept-Encoding` to ask for unless the draft names its own.
    /// - Throws: `NetworkError.invalidURL` when the target is not an absolute http: or https: URL
    ///   (a path nothing resolved), `.invalidRequest` when the parameters, header fields or body
    ///   cannot be encoded.
    static func build(_ draft: RequestDraft, options: RequestOptions, timeout: Duration,
                      acceptEncoding: String? = nil) throws -> OutgoingRequest {
        var url: URL
        switch draft.target {
        case .url(let absolute) where absolute.scheme != nil:
            url = absolute
        case .url(let relative):
            throw NetworkError.invalidURL("\"\(relative.relativeString)\" is not an absolute URL (a path needs Request(path:))")
        case .path(let path):
            throw NetworkError.unresolvedPath(path, useCDN: draft.useCDN)
        }
        let method = draft.method
        let parameters = draft.parameters
        var body: Data?
        var bodyIsOnDisk = false  // a file, a stream, or a multipart form too large for memory (see `UploadFile`)
        var contentType: String?
        switch resolvedBody(options.body, for: method) {
        case .form where !parameters.isEmpty:
            body = Data(FormEncoder.encode(parameters).utf8)
            contentType = "application/x-www-form-urlencoded; charset=utf-8"
        case .json where !parameters.isEmpty:
            do {
                body = try JSON.object(parameters).serialized()
            } catch {
                throw NetworkError.invalidRequest("parameters cannot be written as JSON: \(error)")
            }
            contentType = "application/json"
        case .form, .json:
            break
        case .automatic, .none, .data, .file, .stream, .multipart:
            if !parameters.isEmpty { url = try appendingQuery(parameters, to: url, keepingExisting: false) }
            switch options.body {
            case .data(let data, let type):
                (body, contentType) = (data, type)
            case .file(_, let type), .stream(_, let type):
                contentType = type
                bodyIsOnDisk = true
            case .multipart(let form):
                contentType = form.contentType
                if try UploadFile.fitsInMemory(form) { body = try form.encoded() } else { bodyIsOnDisk = true }
            default:
                break
            }
        }
        if let coding = options.bodyEncoding, let plain = body {
            do {
                body = try Decompressor.compress(plain, coding: coding)
            } catch {
                throw NetworkError.bodyCompressionFailed(coding, error)
            }
        }
        // The draft's own fields come last, in their order, and replace the kit's of the same name.
        var fields = HTTPFields()
        fields.reserveCapacity(draft.headerFields.count + 3)
        if let acceptEncoding { fields[.acceptEncoding] = acceptEncoding }
        if let contentType { fields[.contentType] = contentType }
        if let coding = options.bodyEncoding, body != nil || bodyIsOnDisk {
            fields[.contentEncoding] = coding.rawValue
        }
        if !draft.headerFields.isEmpty {
            // At most three fields of the kit's: a scan of the draft's for each, no set to make.
            fields.removeAll { kit in draft.headerFields.contains { $0.name == kit.name } }
            fields.append(contentsOf: draft.headerFields)
        }
        fields.addCredentials(of: url)
        let built: OutgoingRequest.Body
        if case .stream(let stream, _) = options.body {
            built = .stream(options.bodyEncoding.map { stream.compressed($0) } ?? stream)
        } else {
            built = body.map { .data($0) } ?? .none
        }
        return try OutgoingRequest.built(method: method, url: url, headerFields: fields, body: built,
                                         timeout: try validTimeout(options.timeout ?? timeout))
    }

    /// What identifies a download across attempts and runs: the URL of the request's target
    /// with its own parameters, without what the interceptors add each time (common parameters,
    /// URL filters, signatures), which may hold a timestamp or a nonce. A path is resolved on
    /// `environment`, the service's.
    static func downloadIdentity(_ options: RequestOptions, environment: ServiceEnvironment) -> String {
        if case .success(let custom) = options.customRequest { return custom.head.urlString }
        var url: URL
        switch options.target {
        case .url(let absolute):
            url = absolute
        case .path(let path):
            guard let resolved = try? environment.resolve(path, useCDN: options.useCDN) else { return path }
            url = resolved
        }
        if !options.parameters.isEmpty, let withQuery = try? appendingQuery(options.parameters, to: url, keepingExisting: false) {
            url = withQuery
        }
        return url.absoluteString
    }

    /// `timeout`, which the request carries to the transports and the kit's idle watch
    /// (`IdleTimeout`).
    /// - Throws: `NetworkError.invalidRequest` when it is zero or less.
    static func validTimeout(_ timeout: Duration) throws -> Duration {
        guard timeout > .zero else {
            throw NetworkError.invalidRequest("the timeout must be positive, not \(timeout)")
        }
        return timeout
    }

    private static let queryAllowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "%"))

    /// `url` with `parameters` form-encoded after its query (if any) and before its fragment.
    /// With `keepingExisting`, a parameter whose name the query has already is left out.
    static func appendingQuery(_ parameters: [String: JSON], to url: URL, keepingExisting: Bool) throws -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw NetworkError.invalidURL(url.absoluteString)
        }
        var parameters = parameters
        if keepingExisting, let existing = components.queryItems {
            for item in existing { parameters[item.name] = nil }
        }
        guard !parameters.isEmpty else { return url }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        let query = existing + FormEncoder.encode(parameters)
        // URLComponents traps on a query with characters a query cannot hold: refuse it instead.
        guard query.unicodeScalars.allSatisfy({ queryAllowed.contains($0) }) else {
            throw NetworkError.invalidURL(url.absoluteString)
        }
        components.percentEncodedQuery = query
        guard let result = components.url else { throw NetworkError.invalidURL(url.absoluteString) }
        return result
    }
}
