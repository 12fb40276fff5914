import Foundation

/// What was measured about one request, from start to finish. FoundationNetworking never
/// reports URLSession's own metrics, so the kit measures these itself.
public struct RequestMetrics: Sendable {
    /// The request's identity.
    public var id: RequestID
    /// The last URL sent, after interceptors; nil when nothing was sent.
    public var url: URL?
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The status of the last response, if one arrived.
    public var statusCode: Int?
    /// How many times it was sent (1 without retries; 0 when it failed before sending).
    public var attempts: Int
    /// From `start` to the result.
    public var duration: Duration
    /// Request body bytes sent, over all attempts.
    public var bytesSent: Int64
    /// Response body bytes received, over all attempts (inflated, if content-encoded).
    public var bytesReceived: Int64
    /// The failure, or nil when the request succeeded.
    public var error: NetworkError?
    /// The version of HTTP the last response came over, when the transport reports it.
    public var httpVersion: HTTPVersion?
    /// What the response cache did: not used, miss, hit, revalidated (`304`) or refreshed.
    public var cache: CacheOutcome = .notUsed
    /// Whether the answer came from the response cache (a hit, or an entry revalidated by `304`).
    public var isFromCache: Bool { cache == .hit || cache == .revalidated }
}
