import Foundation

/// Step 2 of the pipeline, the response cache (see `CacheStep`).
extension RequestPipeline {
    /// Looks the request up. A fresh entry that parses answers it (`cacheElseNetwork`); with
    /// `cacheThenNetwork` any entry that parses is delivered to the handlers first and the
    /// network answers after. An entry the parser chain refuses is dropped.
    func answerFromCache(_ step: inout CacheStep, recording metrics: inout RequestMetrics) async -> AnyResult? {
        await step.lookUp { wait in await waitCancellably(wait) }
        guard isCancelled == false else { return .failure(.cancelled) }
        metrics.cache = step.entry == nil || step.policy.mode == .reload ? .miss : .refreshed
        guard let entry = step.entry, step.policy.mode != .reload else { return nil }
        switch step.policy.mode {
        case .cacheElseNetwork where step.isFresh:
            let result = await parse(cached: entry)
            guard case .success = result else { break }
            metrics.cache = .hit
            metrics.statusCode = entry.statusCode
            metrics.url = entry.url
            return result
        case .cacheThenNetwork:
            let result = await parse(cached: entry)
            guard case .success(let value) = result else { break }
            var interim = metrics
            interim.cache = .hit
            interim.statusCode = entry.statusCode
            await request.deliverCached(CachedReply(value: value, head: entry.head, metrics: interim))
            return nil
        default:
            return nil
        }
        step.discardEntry()
        metrics.cache = .miss
        return nil
    }

    /// A `304 Not Modified` (`head`) to a conditional request: the answer from the entry it
    /// refreshed, or nil when there is no entry to refresh. An entry the parser chain refuses is
    /// dropped.
    func revalidate(with head: ResponseHead, cache: inout CacheStep?,
                    recording metrics: inout RequestMetrics) async -> AnyResult? {
        guard let refreshed = cache?.revalidate(with: head) else { return nil }
        let result = await parse(cached: refreshed)
        if case .success = result {
            metrics.cache = .revalidated
            metrics.statusCode = refreshed.statusCode
        } else {
            cache?.discardEntry()
        }
        return result
    }

    /// An entry through the request's parser chain, as if the server had just sent it.
    private func parse(cached entry: CacheEntry) async -> AnyResult {
        request.didReceive(head: entry.head)
        return await parse(entry.response(envelope: configuration.envelope))
    }

    /// Runs `wait` in a task of its own that `Request.cancel()` can cancel (the pipeline may run
    /// in the caller's task), and returns what it returned (false when cancelled).
    private func waitCancellably(_ wait: @escaping @Sendable () async -> Bool) async -> Bool {
        let outcome = Protected(false)
        let task = Task<Void, any Error> { let value = await wait(); outcome.withLock { $0 = value } }
        request.attach(.wait(task))
        await withTaskCancellationHandler { _ = try? await task.value } onCancel: { task.cancel() }
        return outcome.snapshot
    }
}
