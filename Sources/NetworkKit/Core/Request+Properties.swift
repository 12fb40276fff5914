import Foundation

extension Request {
    /// The absolute URL or the path on the base URL.
    public var url: String {
        get { options.withLock { $0.target } }
        set { options.withLock { $0.target = newValue } }
    }

    /// The HTTP method.
    public var method: HTTPMethod {
        get { options.withLock { $0.method } }
        set { options.withLock { $0.method = newValue } }
    }

    /// Parameters: in the query, or as the body when `body` is `.form` or `.json`.
    public var parameters: [String: JSON] {
        get { options.withLock { $0.parameters } }
        set { options.withLock { $0.parameters = newValue } }
    }

    /// Header fields sent with this request; they win over the service's.
    public var headers: [String: String] {
        get { options.withLock { $0.headers } }
        set { options.withLock { $0.headers = newValue } }
    }

    /// Seconds without data before the request fails; nil uses the service's timeout.
    public var timeout: TimeInterval? {
        get { options.withLock { $0.timeout } }
        set { options.withLock { $0.timeout = newValue } }
    }

    /// Resolve a path on the service's CDN URL instead of its base URL.
    public var useCDN: Bool {
        get { options.withLock { $0.useCDN } }
        set { options.withLock { $0.useCDN = newValue } }
    }

    /// Status codes that count as success; others fail with `NetworkError.httpStatus`.
    public var acceptableStatusCodes: Range<Int> {
        get { options.withLock { $0.acceptableStatusCodes } }
        set { options.withLock { $0.acceptableStatusCodes = newValue } }
    }

    /// Compress the request body with gzip or deflate before sending (and say so in
    /// `Content-Encoding`), for servers that accept compressed uploads. Nil sends it as is.
    public var bodyEncoding: ContentCoding? {
        get { options.withLock { $0.bodyEncoding } }
        set { options.withLock { $0.bodyEncoding = newValue } }
    }

    /// What the request sends as its body, and so where its parameters go (see `RequestBody`).
    public var body: RequestBody {
        get { options.withLock { $0.body } }
        set { options.withLock { $0.body = newValue } }
    }
}

extension Request {
    /// Interceptors of this request alone, run after the service's (see `usesServiceInterceptors`).
    public var interceptors: [any RequestInterceptor] {
        get { options.withLock { $0.interceptors } }
        set { options.withLock { $0.interceptors = newValue } }
    }

    /// Whether the service's interceptors run for this request too (true by default).
    public var usesServiceInterceptors: Bool {
        get { options.withLock { $0.usesServiceInterceptors } }
        set { options.withLock { $0.usesServiceInterceptors = newValue } }
    }

    /// Whether sending this request twice does no harm, which retry policies require. Nil (the
    /// default) goes by the method: GET, HEAD, PUT, DELETE and OPTIONS are idempotent, POST and
    /// PATCH are not. Set it to true to let a POST be retried.
    public var isIdempotent: Bool? {
        get { options.withLock { $0.isIdempotent } }
        set { options.withLock { $0.isIdempotent = newValue } }
    }
}
