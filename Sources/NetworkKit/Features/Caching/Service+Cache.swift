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
    /// ``CachedValue/isFresh``). The entry is checked and parsed as the network's answer would
    /// be: the request's status codes, its envelope and the service's validation (unless it leaves
    /// them out), its parsers. Throws when the request cannot be built or the entry does not pass
    /// (the entry is then dropped).
    public func cachedValue<Output>(for request: Request<Output>) throws(NetworkError) -> CachedValue<Output>? {
        let configuration = self.configuration
        let options = request.options
        let pipeline = RequestPipeline(request: request, options: options, settings: pipelineSettings, service: self)
        let prepared = try pipeline.build()
        guard let policy = options.cache, RequestPipeline.canCache(options),
              let key = configuration.responseCache.key(for: prepared, policy: policy,
                                                        ignoring: configuration.ignoredCacheKeyArguments),
              let entry = configuration.responseCache.entry(for: key) else { return nil }
        switch pipeline.accept(entry.response).flatMap({ request.parser.parseResult($0) }) {
        case .success(let value):
            return CachedValue(value: value, storedAt: entry.storedAt,
                               isFresh: entry.isFresh(at: pipelineSettings.dates.now, policy: policy))
        case .failure(let error):
            configuration.responseCache.remove(key)
            throw error
        }
    }

    /// Sends `request` and yields its replies: for a ``CachePolicy/Mode-swift.enum/cacheThenNetwork``
    /// request with an entry, the cached one first (``RequestMetrics/isFromCache`` true), then the
    /// network's; otherwise the one reply `reply(to:)` returns. Ending the iteration early
    /// cancels the request.
    public func replies<Output>(to request: Request<Output>) -> Replies<Output> {
        Replies(AsyncStream { continuation in
            request.observeCachedReply { continuation.yield(.success($0)) }
            let task = Task {
                do throws(NetworkError) {
                    continuation.yield(.success(try await self.reply(to: request)))
                } catch {
                    continuation.yield(.failure(error))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        })
    }
}

/// The replies of a request as ``Service/replies(to:)`` hands them out: an `AsyncSequence` whose
/// failure is ``NetworkError``, like every other way to await a request.
public struct Replies<Output: Sendable>: AsyncSequence, Sendable {
    /// The sequence yields the request's replies.
    public typealias Element = Reply<Output>
    /// Why the request failed.
    public typealias Failure = NetworkError

    private let results: AsyncStream<Result<Reply<Output>, NetworkError>>

    init(_ results: AsyncStream<Result<Reply<Output>, NetworkError>>) {
        self.results = results
    }

    /// An iterator over the replies; the request runs while it is held.
    public func makeAsyncIterator() -> Iterator {
        Iterator(results: results.makeAsyncIterator())
    }

    /// Hands out each reply, then throws the request's failure if it failed.
    public struct Iterator: AsyncIteratorProtocol {
        private var results: AsyncStream<Result<Reply<Output>, NetworkError>>.Iterator

        init(results: AsyncStream<Result<Reply<Output>, NetworkError>>.Iterator) {
            self.results = results
        }

        /// The next reply; nil after the last.
        public mutating func next() async throws(NetworkError) -> Reply<Output>? {
            try await results.next()?.get()
        }

        /// The next reply, whatever the isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> Reply<Output>? {
            try await results.next(isolation: actor)?.get()
        }
    }
}
