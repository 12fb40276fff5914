import Foundation

extension AnyRequest {
    /// Where the request goes: an absolute URL, or a path on the service's base URL.
    public var target: RequestTarget {
        get { self[option: \.target] }
        set { self[option: \.target] = newValue }
    }

    /// The HTTP method.
    public var method: HTTPRequest.Method {
        get { self[option: \.method] }
        set { self[option: \.method] = newValue }
    }

    /// Parameters: in the query, or as the body when `body` is `.form` or `.json`.
    public var parameters: [String: JSON] {
        get { self[option: \.parameters] }
        set { self[option: \.parameters] = newValue }
    }

    /// Header fields sent with this request; they win over the service's.
    public var headerFields: HTTPFields {
        get { self[option: \.headerFields] }
        set { self[option: \.headerFields] = newValue }
    }

    /// How long the request may go without receiving or sending a byte before it fails; nil
    /// uses the service's ``ServiceConfiguration/timeout``. Zero or less fails the request with
    /// `NetworkError.invalidRequest`.
    public var timeout: Duration? {
        get { self[option: \.timeout] }
        set { self[option: \.timeout] = newValue }
    }

    /// Resolve a path on the service's CDN URL instead of its base URL.
    public var useCDN: Bool {
        get { self[option: \.useCDN] }
        set { self[option: \.useCDN] = newValue }
    }

    /// Status codes that count as success; others fail with `NetworkError.httpStatus`.
    public var acceptableStatusCodes: Range<Int> {
        get { self[option: \.acceptableStatusCodes] }
        set { self[option: \.acceptableStatusCodes] = newValue }
    }

    /// Compress the request body with gzip or deflate before sending (and say so in
    /// `Content-Encoding`), for servers that accept compressed uploads. Nil sends it as is.
    public var bodyEncoding: ContentCoding? {
        get { self[option: \.bodyEncoding] }
        set { self[option: \.bodyEncoding] = newValue }
    }

    /// What the request sends as its body, and so where its parameters go (see `RequestBody`).
    public var body: RequestBody {
        get { self[option: \.body] }
        set { self[option: \.body] = newValue }
    }
}

extension AnyRequest {
    /// Your interceptors of this request alone, in the order they run: after the service's own
    /// (see `usesServiceInterceptors` and <doc:Interceptors>) and before the service's signer,
    /// which signs what they changed; its ``parameterRules`` are checked after them. Add one with
    /// `append`.
    public var interceptors: [any RequestInterceptor] {
        get { self[option: \.interceptors].ownInterceptors }
        set { withStateMachine { $0.options.interceptors.replaceOwnInterceptors(with: newValue) } }
    }

    /// Whether the interceptors you added to the service run for this request too (true by
    /// default). The service's built-in steps (environment, common parameters and headers, URL
    /// filters, signer) run either way.
    public var usesServiceInterceptors: Bool {
        get { self[option: \.usesServiceInterceptors] }
        set { self[option: \.usesServiceInterceptors] = newValue }
    }

    /// The service's defaults this request leaves out, each on its own: its common headers or
    /// parameters, its signer, its envelope (empty by default). The interceptors that carry the
    /// pre-send steps are left out of this request's chain; the rest of the chain runs as usual.
    ///
    ///     upload.skippedServiceDefaults = [.commonParameters, .signer]
    public var skippedServiceDefaults: ServiceDefaults {
        get { self[option: \.skippedServiceDefaults] }
        set { self[option: \.skippedServiceDefaults] = newValue }
    }

    /// How important this request is next to the service's others (``RequestPriority/normal`` by
    /// default): it orders the wait where the service limits its requests in flight, and is the
    /// `URLSessionTask.priority` of its transfers through `URLSessionTransport`.
    ///
    ///     thumbnail.priority = .low
    public var priority: RequestPriority {
        get { self[option: \.priority] }
        set { self[option: \.priority] = newValue }
    }

    /// Whether sending this request twice does no harm, which retry policies require. Nil (the
    /// default) goes by the method: GET, HEAD, PUT, DELETE and OPTIONS are idempotent, POST and
    /// PATCH are not. Set it to true to let a POST be retried.
    public var isIdempotent: Bool? {
        get { self[option: \.isIdempotent] }
        set { self[option: \.isIdempotent] = newValue }
    }
}

extension AnyRequest {
    /// Limits on what the server may send: a larger body or a longer wait fails the request with
    /// `NetworkError.responseTooLarge` or `.timeLimitExceeded` instead of taking the process's
    /// memory or time.
    ///
    /// The most body bytes to accept, counted as delivered (after any content decoding, so a
    /// gzip bomb is caught by what it inflates to); a `Content-Length` above it fails before the
    /// body is read. Nil uses the service's limit for the kind of request (`maxResponseBytes`,
    /// or `maxDownloadBytes` for downloads to disk).
    public var maxResponseBytes: Int64? {
        get { self[option: \.maxResponseBytes] }
        set { self[option: \.maxResponseBytes] = newValue }
    }

    /// The most time the request may take from start to finish, retries and waits between
    /// them included (`timeout` is the idle time between bytes). Nil uses the service's
    /// (`timeLimit`, or `downloadTimeLimit` for downloads to disk).
    public var timeLimit: Duration? {
        get { self[option: \.timeLimit] }
        set { self[option: \.timeLimit] = newValue }
    }

    /// What this request does with redirects; nil uses the service's `redirectPolicy`.
    public var redirectPolicy: RedirectPolicy? {
        get { self[option: \.redirectPolicy] }
        set { self[option: \.redirectPolicy] = newValue }
    }
}
