import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stage 2 of the pipeline, the response cache, through the hooks of ResponseCaching.swift.
extension RequestPipeline {
    /// Whether a request's answer may be cached: only a plain request's, and not one whose body
    /// comes from a file or a stream.
    static func canCache(_ options: RequestOptions) -> Bool {
        guard options.kind.isCacheable else { return false }
        switch options.body {
        case .file, .stream, .multipart: return false
        default: return true
        }
    }

    /// The cache at work on this request, whose ``CachePolicy`` is `policy`, or nil when it cannot
    /// be cached or the service keeps no cache.
    func cacheLookup(for prepared: OutgoingRequest, policy: CachePolicy) -> (any RequestCaching)? {
        guard Self.canCache(options) else { return nil }
        return settings.responseCache?.lookUp(prepared, policy: policy, ignoring: settings.ignoredCacheKeyArguments,
                                              dates: settings.dates)
    }

    /// Looks the request up. A fresh entry that parses answers it (`cacheElseNetwork`); with
    /// `cacheThenNetwork` any entry that parses is delivered to the handlers first and the
    /// network answers after. An entry the parser chain refuses is dropped.
    func answerFromCache(_ cache: inout any RequestCaching, recording metrics: inout RequestMetrics) async -> AnyResult? {
        let finding = await cache.find { wait in await waitCancellably(wait) }
        guard isCancelled == false else { return .failure(.cancelled) }
        switch finding {
        case .miss:
            metrics.cache = .miss
            return nil
        case .stale:
            metrics.cache = .refreshed
            return nil
        case .fresh(let entry):
            metrics.cache = .refreshed
            let result = await parse(cached: entry)
            if case .success = result {
                metrics.cache = .hit
                metrics.statusCode = entry.status.code
                metrics.url = entry.url
                return result
            }
        case .interim(let entry):
            metrics.cache = .refreshed
            if case .success(let value) = await parse(cached: entry) {
                var interim = metrics
                interim.cache = .hit
                interim.statusCode = entry.status.code
                await request.deliverCached(CachedReply(value: value, head: entry.head, metrics: interim))
                return nil
            }
        }
        cache.discardEntry()
        metrics.cache = .miss
        return nil
    }

    /// A `304 Not Modified` (`head`) to a conditional request: the answer from the entry it
    /// refreshed, or nil when there is no entry to refresh. An entry the parser chain refuses is
    /// dropped.
    @inline(never)
    func revalidate(with head: ResponseHead, cache: inout (any RequestCaching)?,
                    recording metrics: inout RequestMetrics) async -> AnyResult? {
        guard let refreshed = cache?.revalidate(with: head) else { return nil }
        let result = await parse(cached: refreshed)
        if case .success = result {
            metrics.cache = .revalidated
            metrics.statusCode = refreshed.status.code
        } else {
            cache?.discardEntry()
        }
        return result
    }

    /// An entry through stages 5 and 6 as if the server had just sent it: the same checks, the
    /// request's own envelope and parsers, and a progress handler's 100 %.
    private func parse(cached entry: Response) async -> AnyResult {
        request.didReceive(head: entry.head)
        request.didReceiveWholeBody(bytes: Int64(entry.data.count))
        switch accept(entry) {
        case .success(let response): return await parse(response)
        case .failure(let error): return .failure(error)
        }
    }

    /// Runs `wait` in a task of its own that `Request.cancel()` can cancel (the pipeline may run
    /// in the caller's task), and returns what it returned (false when cancelled).
    private func waitCancellably(_ wait: @escaping @Sendable () async -> Bool) async -> Bool {
        let returned = Protected(false)
        let task = Task<Void, any Error> { let value = await wait(); returned.withLock { $0 = value } }
        request.attach(.wait(task))
        await withTaskCancellationHandler { _ = try? await task.value } onCancel: { task.cancel() }
        return returned.snapshot
    }
}
