import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A value read from the response cache without the network (``Service/cachedValue(for:)``).
public struct CachedValue<Output: Sendable>: Sendable {
    /// The entry, parsed by the request's parser chain.
    public let value: Output
    /// When the entry was stored or last revalidated.
    public let storedAt: Date
    /// Whether the entry is still fresh under the request's policy.
    public let isFresh: Bool
}

extension Service {
    /// The last answer cached for `request`, parsed by its own parser chain, right now on the
    /// calling thread (YTKNetwork's `loadCacheWithError`), so a screen can show it before the
    /// request finishes with a fresh answer. Nil when the request has no ``AnyRequest/cache``
    /// policy, cannot be cached, or has no entry; stale entries are returned too (see
    /// ``CachedValue/isFresh``). Throws when the request cannot be built or the entry does not
    /// parse (the entry is then dropped).
    public func cachedValue<Output>(for request: Request<Output>) throws(NetworkError) -> CachedValue<Output>? {
        let configuration = self.configuration
        let options = request.options
        let prepared = try RequestPipeline(request: request, options: options, settings: pipelineSettings,
                                           service: self).build()
        guard let policy = options.cache, RequestPipeline.canCache(options),
              let key = configuration.responseCache.key(for: prepared, policy: policy,
                                                        ignoring: configuration.ignoredCacheKeyArguments),
              let entry = configuration.responseCache.entry(for: key) else { return nil }
        var response = entry.response
        response.envelope = configuration.envelope
        switch request.parser.parseResult(response) {
        case .success(let value):
            return CachedValue(value: value, storedAt: entry.storedAt,
                               isFresh: entry.isFresh(at: configuration.responseCache.currentDate, policy: policy))
        case .failure(let error):
            configuration.responseCache.remove(key)
            throw error
        }
    }

    /// Sends `request` and yields its replies: for a ``CachePolicy/Mode-swift.enum/cacheThenNetwork``
    /// request with an entry, the cached one first (``RequestMetrics/isFromCache`` true), then the
    /// network's; otherwise the one reply `reply(to:)` returns. Ending the iteration early
    /// cancels the request.
    public func replies<Output>(to request: Request<Output>) -> AsyncThrowingStream<Reply<Output>, any Error> {
        AsyncThrowingStream { continuation in
            request.observeCachedReply { continuation.yield($0) }
            let task = Task {
                do {
                    continuation.yield(try await self.reply(to: request))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
