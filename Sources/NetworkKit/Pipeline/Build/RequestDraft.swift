import Foundation

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
