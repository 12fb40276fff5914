import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes a prepared `RequestDraft` into the `URLRequest` the interceptors then adapt.
enum URLRequestBuilder {
    /// The `URLRequest` `draft` describes, with the body `options` ask for. `acceptEncoding` is
    /// the `Accept-Encoding` to ask for unless the draft names its own.
    /// - Throws: `NetworkError.invalidURL` when the target is not an absolute URL (a path nothing
    ///   resolved), `.invalidRequest` when the parameters or body cannot be encoded.
    static func build(_ draft: RequestDraft, options: RequestOptions, timeout: Duration,
                      acceptEncoding: String? = nil) throws -> URLRequest {
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
        var bodyIsOnDisk = false  // a file, or a multipart form too large for memory (see `UploadFile`)
        var contentType: String?
        switch options.body.resolved(for: method) {
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
        case .automatic, .none, .data, .file, .multipart:
            if !parameters.isEmpty { url = try appendingQuery(parameters, to: url, keepingExisting: false) }
            switch options.body {
            case .data(let data, let type):
                (body, contentType) = (data, type)
            case .file(_, let type):
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
                throw NetworkError.invalidRequest("cannot \(coding.rawValue)-compress the body: \(error)")
            }
        }
        // Each URLRequest mutation goes through Foundation's copy-on-write box: skip the ones
        // that would set the default anyway. (The timeout must be set through the property:
        // FoundationNetworking ignores the one given to the initializer.)
        var request = URLRequest(url: url)
        request.timeoutInterval = try timeoutInterval(options.timeout ?? timeout)
        // Set first, while the request has no header to compare with (Foundation compares names
        // case-insensitively through capitalized copies): the draft's own `Accept-Encoding`, set
        // below, replaces it.
        if let acceptEncoding { request.setValue(acceptEncoding, forHTTPHeaderField: "Accept-Encoding") }
        if method != .get { request.httpMethod = method.rawValue }
        if let body { request.httpBody = body }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        if let coding = options.bodyEncoding, body != nil || bodyIsOnDisk {
            request.setValue(coding.rawValue, forHTTPHeaderField: "Content-Encoding")
        }
        for (name, value) in draft.headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// What identifies a download across attempts and runs: the URL of the request's target
    /// with its own parameters, without what the interceptors add each time (common parameters,
    /// URL filters, signatures), which may hold a timestamp or a nonce. A path is resolved on
    /// `environment`, the service's.
    static func downloadIdentity(_ options: RequestOptions, environment: ServiceEnvironment) -> String {
        if let custom = options.customRequest { return custom.url?.absoluteString ?? options.target.description }
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

    /// `timeout` as the `URLRequest`'s interval, which carries it to the transports and the
    /// kit's idle watch (`IdleTimeout`).
    /// - Throws: `NetworkError.invalidRequest` when it is zero or less.
    static func timeoutInterval(_ timeout: Duration) throws -> TimeInterval {
        guard timeout > .zero else {
            throw NetworkError.invalidRequest("the timeout must be positive, not \(timeout)")
        }
        return timeout.inSeconds
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

extension URL {
    /// Why NetworkKit does not send to this URL, in words for an error: its scheme is not http or
    /// https, or it has no host. Nil when it does. The pipeline checks every request with it
    /// before the transport sees it.
    package var unsendableReason: String? {
        // Compared without lowercasing: every request passes here.
        let scheme = scheme ?? ""
        guard HeaderFields.sameName(scheme, "http") || HeaderFields.sameName(scheme, "https") else {
            let name = scheme.isEmpty ? "a URL without a scheme" : "the \(scheme.lowercased()): scheme"
            return "\(absoluteString): \(name) is not supported (http: and https: only)"
        }
        guard host(percentEncoded: true)?.isEmpty == false else { return "\(absoluteString): no host" }
        return nil
    }
}
