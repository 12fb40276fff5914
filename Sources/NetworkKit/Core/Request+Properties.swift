import Foundation

extension Request {
    /// The absolute URL or the path on the base URL.
    public var url: String {
        get { spec.withLock { $0.target } }
        set { spec.withLock { $0.target = newValue } }
    }

    /// The HTTP method.
    public var method: HTTPMethod {
        get { spec.withLock { $0.method } }
        set { spec.withLock { $0.method = newValue } }
    }

    /// Parameters, written where `parameterEncoding` says.
    public var parameters: [String: JSON] {
        get { spec.withLock { $0.parameters } }
        set { spec.withLock { $0.parameters = newValue } }
    }

    /// Query string, form body or JSON body; `.automatic` picks by method.
    public var parameterEncoding: ParameterEncoding {
        get { spec.withLock { $0.parameterEncoding } }
        set { spec.withLock { $0.parameterEncoding = newValue } }
    }

    /// Header fields sent with this request; they win over the service's.
    public var headers: [String: String] {
        get { spec.withLock { $0.headers } }
        set { spec.withLock { $0.headers = newValue } }
    }

    /// Seconds without data before the request fails; nil uses the service's timeout.
    public var timeout: TimeInterval? {
        get { spec.withLock { $0.timeout } }
        set { spec.withLock { $0.timeout = newValue } }
    }

    /// Resolve a path on the service's CDN URL instead of its base URL.
    public var useCDN: Bool {
        get { spec.withLock { $0.useCDN } }
        set { spec.withLock { $0.useCDN = newValue } }
    }

    /// Status codes that count as success; others fail with `NetworkError.httpStatus`.
    public var acceptableStatusCodes: Range<Int> {
        get { spec.withLock { $0.acceptableStatusCodes } }
        set { spec.withLock { $0.acceptableStatusCodes = newValue } }
    }

    /// Compress the request body with gzip or deflate before sending (and say so in
    /// `Content-Encoding`), for servers that accept compressed uploads. Nil sends it as is.
    public var bodyEncoding: ContentCoding? {
        get { spec.withLock { $0.bodyEncoding } }
        set { spec.withLock { $0.bodyEncoding = newValue } }
    }

    /// Sets a raw body and its content type, for bodies that are not parameters.
    public func setBody(_ data: Data, contentType: String) {
        spec.withLock {
            $0.body = data
            $0.bodyContentType = contentType
        }
    }

    /// The raw body, if one was set with `setBody`.
    public var body: Data? {
        spec.withLock { $0.body }
    }
}
