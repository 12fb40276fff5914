/// A cached value a cache-then-network request delivers before the network answers.
struct CachedReply: Sendable {
    let value: any Sendable
    let head: ResponseHead
    let metrics: RequestMetrics
}
