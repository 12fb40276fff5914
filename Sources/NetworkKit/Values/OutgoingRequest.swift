import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
// swift-http-types is the kit's vocabulary for requests and header fields: an app that imports
// NetworkKit names `HTTPRequest`, `HTTPFields` and `HTTPField.Name` without importing it too.
@_exported import HTTPTypes
import HTTPTypesFoundation

/// A request as the kit sends it: swift-http-types' `HTTPRequest` (method, scheme, authority,
/// path with query, header fields), its body and its idle timeout. Interceptors adapt it, the
/// signer signs it, monitors hear it and a ``Transport`` sends it as it is.
///
/// ```swift
/// func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
///     var request = request
///     request.head.headerFields[.authorization] = "Bearer \(try await tokens.current())"
///     return request
/// }
/// ```
///
/// A target carries no user name or password (RFC 9110 §4.2.4): the initializers that take a
/// URL turn a URL's credentials into an `Authorization: Basic` field, unless the request has one,
/// as curl and URLSession do.
public struct OutgoingRequest: Sendable, Hashable {
    /// The URL a request was made from when it is exactly what the head targets (no user
    /// information, no fragment, a path), kept while the head still targets it, so reading
    /// ``url`` parses nothing on the way to the transport.
    private struct TargetMemo: Sendable {
        let url: URL
        let scheme: String?
        let authority: String?
        let path: String?

        init(_ url: URL, head: HTTPRequest) {
            self.url = url
            (scheme, authority, path) = (head.scheme, head.authority, head.path)
        }

        func url(for head: HTTPRequest) -> URL? {
            head.scheme == scheme && head.authority == authority && head.path == path ? url : nil
        }
    }

    /// What a request sends after its head.
    public enum Body: Sendable, Hashable {
        /// No body.
        case none
        /// These bytes.
        case data(Data)
        /// The contents of this file, streamed from disk (a ``RequestBody/file(_:contentType:)``,
        /// a multipart form too large for memory; with ``AnyRequest/bodyEncoding`` the compressed
        /// file, as sent).
        case file(URL)
        /// Chunks made as they are sent (a ``RequestBody/stream(_:contentType:)``; with
        /// ``AnyRequest/bodyEncoding`` compressed as they go).
        case stream(RequestBodyStream)

        /// Whether the body can be sent (again): anything but a stream made once that was read.
        package var canBeSent: Bool {
            if case .stream(let stream) = self { stream.canBeSent } else { true }
        }
    }

    /// The method, the target (scheme, authority, path and query) and the header fields.
    public var head: HTTPRequest
    /// What is sent after the head.
    public var body: Body
    /// How long the transfer may neither receive nor send a byte before it fails with a
    /// `.timedOut` transport error; nil for no such limit.
    public var timeout: Duration?
    private var memo: TargetMemo?

    /// A request of `head`, sending `body`, failing after `timeout` of silence (nil: never).
    public init(head: HTTPRequest, body: Body = .none, timeout: Duration? = .seconds(60)) {
        self.head = head
        self.body = body
        self.timeout = timeout
    }

    /// A request of `method` to `url` with `headerFields`, sending `body`.
    /// - Throws: `NetworkError.invalidURL` when `url` is not an absolute http: or https: URL with
    ///   a host.
    public init(method: HTTPRequest.Method = .get, url: URL, headerFields: HTTPFields = [:],
                body: Body = .none, timeout: Duration? = .seconds(60)) throws(NetworkError) {
        var fields = headerFields
        fields.addCredentials(of: url)
        let (head, exact) = try HTTPRequest.target(of: url, method: method, headerFields: fields)
        self.init(head: head, body: body, timeout: timeout)
        if exact { memo = TargetMemo(url, head: head) }
    }

    /// The request `urlRequest` describes: its URL, method, header fields, `httpBody` and
    /// `timeoutInterval` (zero or less, or infinite, for none).
    /// - Throws: `NetworkError.invalidURL` when its URL is missing or not an absolute http: or
    ///   https: URL with a host, `.invalidRequest` when its method or a header field name is not a
    ///   valid token, or its body is an `httpBodyStream` (send a file with ``Body/file(_:)``, or
    ///   a ``Body/stream(_:)``).
    public init(_ urlRequest: URLRequest) throws(NetworkError) {
        guard let url = urlRequest.url else { throw .invalidURL("the request has no URL") }
        guard urlRequest.httpBodyStream == nil else {
            throw .invalidRequest("a URLRequest's httpBodyStream cannot be sent: send the body from a file (OutgoingRequest.Body.file) or as a RequestBodyStream (.stream)")
        }
        guard let method = HTTPRequest.Method(urlRequest.httpMethod ?? "GET") else {
            throw .invalidRequest("\"\(urlRequest.httpMethod ?? "")\" is not an HTTP method")
        }
        var fields = HTTPFields()
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            guard let name = HTTPField.Name(name) else { throw .invalidRequest("\"\(name)\" is not a header field name") }
            fields.append(HTTPField(name: name, value: value))
        }
        fields.addCredentials(of: url)
        let (head, exact) = try HTTPRequest.target(of: url, method: method, headerFields: fields)
        self.init(head: head, body: urlRequest.httpBody.map { .data($0) } ?? .none,
                  timeout: IdleTimeout(seconds: urlRequest.timeoutInterval)?.duration)
        if exact { memo = TargetMemo(url, head: head) }
    }

    /// The URL the head targets (its scheme, authority and path).
    public var url: URL? { memo?.url(for: head) ?? head.url }

    /// Requests are equal when their heads, bodies and timeouts are.
    public static func == (lhs: OutgoingRequest, rhs: OutgoingRequest) -> Bool {
        lhs.head == rhs.head && lhs.body == rhs.body && lhs.timeout == rhs.timeout
    }

    /// Hashes the head, the body and the timeout.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(head)
        hasher.combine(body)
        hasher.combine(timeout)
    }

    /// Points the head at `url`, keeping its method and header fields.
    /// - Throws: `NetworkError.invalidURL` when `url` is not an absolute http: or https: URL with
    ///   a host.
    public mutating func setURL(_ url: URL) throws(NetworkError) {
        let (head, exact) = try HTTPRequest.target(of: url, method: head.method, headerFields: head.headerFields)
        self.head = head
        memo = exact ? TargetMemo(url, head: head) : nil
    }

    /// A request of `method` to `url` with `headerFields` and `body`, for `OutgoingRequestBuilder`,
    /// which has turned the URL's credentials into a field already.
    package static func built(method: HTTPRequest.Method, url: URL, headerFields: HTTPFields, body: Body,
                              timeout: Duration?) throws(NetworkError) -> OutgoingRequest {
        let (head, exact) = try HTTPRequest.target(of: url, method: method, headerFields: headerFields)
        var request = OutgoingRequest(head: head, body: body, timeout: timeout)
        if exact { request.memo = TargetMemo(url, head: head) }
        return request
    }

    /// The body's bytes when they are held in memory; nil for none or a file.
    public var bodyData: Data? {
        if case .data(let data) = body { data } else { nil }
    }

    /// The file the body is streamed from, when it is.
    public var bodyFile: URL? {
        if case .file(let file) = body { file } else { nil }
    }

    /// The stream the body is made from as it is sent, when it is.
    public var bodyStream: RequestBodyStream? {
        if case .stream(let stream) = body { stream } else { nil }
    }

    /// The same request as Foundation's `URLRequest` (without a body from a file or a stream,
    /// which a `URLSession` upload task takes apart); nil when the head has no URL.
    public var urlRequest: URLRequest? {
        guard var request = URLRequest(httpRequest: head) else { return nil }
        request.httpBody = bodyData
        request.timeoutInterval = timeout?.inSeconds ?? IdleTimeout.never
        return request
    }
}

extension HTTPRequest {
    /// A head for `url`, with its pseudo-header fields split out as swift-http-types'
    /// `HTTPRequest(url:)` splits them (the scheme; the host and port, without user information;
    /// the path and query, `/` when empty), from one parse and without the trap that initializer
    /// has for a URL without a scheme or one URLComponents cannot read.
    /// Also says whether `url` is exactly the head's target (it has no user information or
    /// fragment, and a path).
    /// - Throws: `NetworkError.invalidURL` saying why `url` cannot be sent.
    package static func target(of url: URL, method: Method,
                               headerFields: HTTPFields) throws(NetworkError) -> (head: HTTPRequest, exact: Bool) {
        if let reason = url.unsendableReason { throw .invalidURL(reason) }
        // The parts as written (percent-encoded), each read on its own: no string of the whole URL
        // is made again.
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let scheme = components.scheme,
              let host = components.percentEncodedHost, !host.isEmpty else {
            throw .invalidURL(url.absoluteString)
        }
        let authority = components.port.map { "\(host):\($0)" } ?? host
        let written = components.percentEncodedPath
        var path = written.isEmpty ? "/" : written
        if let query = components.percentEncodedQuery { path += "?" + query }
        let head = HTTPRequest(method: method, scheme: scheme, authority: authority, path: path, headerFields: headerFields)
        let exact = components.user == nil && components.password == nil && components.fragment == nil && !written.isEmpty
        return (head, exact)
    }

    /// The target as one absolute URL string (`scheme://authority/path?query`), without the
    /// `URL` that ``url`` parses; empty parts when the head has none.
    package var urlString: String {
        "\(scheme ?? "")://\(authority ?? "")\(path ?? "")"
    }

    /// Why NetworkKit does not send this head, in words for an error (its scheme is not http or
    /// https, it has no authority or no path), or nil when it does: the pipeline's check after
    /// the interceptors, without parsing a `URL`.
    package var unsendableReason: String? {
        let scheme = scheme ?? ""
        guard URL.isHTTPScheme(scheme) else {
            let name = scheme.isEmpty ? "a request without a scheme" : "the \(scheme.lowercased()): scheme"
            return "\(urlString): \(name) is not supported (http: and https: only)"
        }
        guard authority?.isEmpty == false else { return "\(urlString): no host" }
        guard path?.isEmpty == false else { return "\(urlString): no path" }
        return nil
    }

    /// The host the head targets, lowercased, without a port or IPv6 brackets.
    package var host: String {
        guard var authority = authority?.lowercased() else { return "" }
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        if authority.hasPrefix("[") {
            return authority.firstIndex(of: "]").map { String(authority[authority.index(after: authority.startIndex)..<$0]) } ?? authority
        }
        return authority.firstIndex(of: ":").map { String(authority[..<$0]) } ?? authority
    }
}

extension HTTPRequest.Method {
    /// True for methods whose parameters go in the query string by default: GET, HEAD, DELETE
    /// and OPTIONS.
    package var encodesParametersInQuery: Bool {
        self == .get || self == .head || self == .delete || self == .options
    }

    /// True for methods that may be sent twice without harm (RFC 9110, section 9.2.2): GET,
    /// HEAD, OPTIONS, TRACE, PUT and DELETE.
    package var isIdempotent: Bool {
        self == .get || self == .head || self == .options || self == .trace || self == .put || self == .delete
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`, which a reconnecting event stream sends (HTML's server-sent events).
    package static var lastEventID: Self { Self("Last-Event-ID")! }   // a token: cannot fail
}

extension HTTPFields {
    /// Adds `Authorization: Basic` made of `url`'s user name and password, when it has them and
    /// these fields have no `Authorization`.
    package mutating func addCredentials(of url: URL) {
        // URLComponents decodes both parts (Foundation's `URL.password` is left encoded on Linux).
        guard url.user != nil, self[.authorization] == nil,
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let user = components.user else { return }
        let pair = "\(user):\(components.password ?? "")"
        self[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
    }
}

extension URL {
    /// Why NetworkKit does not send to this URL, in words for an error: its scheme is not http or
    /// https, or it has no host. Nil when it does. Every URL an ``OutgoingRequest`` is made from
    /// or pointed at is checked with it.
    package var unsendableReason: String? {
        let scheme = scheme ?? ""
        guard URL.isHTTPScheme(scheme) else {
            let name = scheme.isEmpty ? "a URL without a scheme" : "the \(scheme.lowercased()): scheme"
            return "\(absoluteString): \(name) is not supported (http: and https: only)"
        }
        guard host(percentEncoded: true)?.isEmpty == false else { return "\(absoluteString): no host" }
        return nil
    }
}
