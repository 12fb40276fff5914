import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Adds a handler called once, on the service's callback queue, when the request lands.
    /// Handlers run in the order added. One added after landing is called with the stored result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        let landed = lifecycle.withLock { lifecycle -> (Result<Output, NetworkError>, DispatchQueue)? in
            guard let result = lifecycle.result, let delivery = lifecycle.delivery else {
                lifecycle.completionHandlers.append(handler)
                return nil
            }
            return (result, delivery.callbackQueue)
        }
        if let (result, queue) = landed {
            queue.async { handler(self, result) }
        }
    }

    /// Adds a handler called on the callback queue as the body uploads or downloads
    /// (coalesced to about one call per percent), never after the completion handlers.
    /// One added while the request runs reports from then on.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        lifecycle.withLock { $0.progressHandlers.append(handler) }
        isProgressWatched.withLock { $0 = true }
    }

    /// Adds a handler called on the callback queue when the request starts running and when it lands.
    public func addStateHandler(_ handler: @escaping StateHandler) {
        lifecycle.withLock { $0.stateHandlers.append(handler) }
    }

    /// Cancels the request. Running: the transfer stops and the handlers get `NetworkError.cancelled`.
    /// Not started yet: it lands cancelled as soon as it is started. Landed already: nothing happens.
    public func cancel() {
        stop(with: .cancelled)
    }

    /// Stops the request and lands it with `error`: what `cancel()` does, for the kit's own
    /// reasons (a size or time limit). The running transfer, the wait before a retry and the
    /// pipeline's task are cancelled; the first landing wins.
    func stop(with error: NetworkError) {
        let (running, landNow) = lifecycle.withLock { lifecycle -> (RunningWork, Bool) in
            guard !lifecycle.state.isTerminal, lifecycle.stopReason == nil else { return (RunningWork(), false) }
            lifecycle.cancelRequested = true
            lifecycle.stopReason = error
            if lifecycle.delivery == nil { lifecycle.state = .cancelled }
            let running = RunningWork(pipeline: lifecycle.pipelineTask, transfer: lifecycle.transportTask,
                                      backoff: lifecycle.backoffTask)
            return (running, !lifecycle.landsFromPipeline)
        }
        running.cancel()
        // A download lands from its pipeline once its file is closed, so a handler that starts
        // it again finds the partial file settled.
        if landNow { finish(.failure(error)) }
    }

    /// Calls `observer` with the result as soon as it exists (right away if it already does).
    func observeResult(_ observer: @escaping @Sendable (Result<Output, NetworkError>) -> Void) {
        let result = lifecycle.withLock { lifecycle -> Result<Output, NetworkError>? in
            if lifecycle.result == nil { lifecycle.resultObservers.append(observer) }
            return lifecycle.result
        }
        if let result { observer(result) }
    }

    /// Cache then network: tells the cached-reply observers (`Service.replies(to:)`), then
    /// calls the completion handlers with the cached value on the callback queue, and returns
    /// once they ran. The request keeps running; the handlers are called again when it lands.
    func deliverCached(_ reply: Reply<Output>) async {
        let taken = lifecycle.withLock { lifecycle -> ([CompletionHandler], [@Sendable (Reply<Output>) -> Void], DispatchQueue)? in
            guard lifecycle.result == nil, let delivery = lifecycle.delivery else { return nil }
            return (lifecycle.completionHandlers, lifecycle.cachedReplyObservers, delivery.callbackQueue)
        }
        guard let (handlers, observers, queue) = taken else { return }
        for observer in observers { observer(reply) }
        guard !handlers.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                for handler in handlers { handler(self, .success(reply.value)) }
                continuation.resume()
            }
        }
    }

    /// Calls `observer` with the cached reply a cache-then-network request delivers first.
    func observeCachedReply(_ observer: @escaping @Sendable (Reply<Output>) -> Void) {
        lifecycle.withLock { $0.cachedReplyObservers.append(observer) }
    }

    /// Lands the request, once: stores the result, wakes observers, then runs the handlers on
    /// the callback queue after dropping the request from its service.
    func finish(_ result: Result<Output, NetworkError>) {
        settle { _ in result }
    }

    /// Lands the request from its pipeline, under one lock: a stop (`cancel()`, a limit) wins
    /// over `result`, and `metrics` are kept with the error the request lands with. Returns
    /// what the request landed with (an earlier landing's, when a stop landed it already) and
    /// the metrics as kept.
    func land(_ result: Result<Output, NetworkError>,
              metrics: RequestMetrics) -> (result: Result<Output, NetworkError>, metrics: RequestMetrics) {
        var kept = metrics
        let landed = settle { lifecycle in
            let final = lifecycle.stopReason.map { .failure($0) } ?? result
            if case .failure(let error) = final { kept.error = error }
            lifecycle.metrics = kept
            return final
        }
        return (landed, kept)
    }

    /// Lands the request with what `decide` makes of its lifecycle (under the lock), unless it
    /// has landed already; returns the result it landed with, either way.
    @discardableResult
    private func settle(_ decide: (inout Lifecycle<Output>) -> Result<Output, NetworkError>) -> Result<Output, NetworkError> {
        let (result, landing) = lifecycle.withLock { lifecycle -> (Result<Output, NetworkError>, Landing?) in
            let result = decide(&lifecycle)
            if let earlier = lifecycle.result { return (earlier, nil) }
            guard let delivery = lifecycle.delivery else { return (result, nil) }
            let state: RequestState
            if case .failure(.cancelled) = result { state = .cancelled } else { state = .finished }
            lifecycle.result = result
            lifecycle.state = state
            let callbacks = Callbacks(observers: lifecycle.resultObservers, completion: lifecycle.completionHandlers,
                                      state: lifecycle.stateHandlers)
            lifecycle.completionHandlers = []
            lifecycle.progressHandlers = []
            lifecycle.stateHandlers = []
            lifecycle.resultObservers = []
            lifecycle.cachedReplyObservers = []
            lifecycle.pipelineTask = nil
            lifecycle.transportTask = nil
            lifecycle.backoffTask = nil
            return (result, Landing(callbacks: callbacks, delivery: delivery, state: state))
        }
        guard let landing else { return result }
        let delivery = landing.delivery, callbacks = landing.callbacks, state = landing.state
        // Out of the service before anyone hears of the landing (a batch that observes it may
        // land at once); the block below keeps the request alive until its handlers have run.
        delivery.registry.remove(id)
        for observer in callbacks.observers { observer(result) }
        let handlers = callbacks.completion
        let stateHandlers = callbacks.state
        guard !handlers.isEmpty || !stateHandlers.isEmpty else { return result }
        delivery.callbackQueue.async {
            for handler in stateHandlers { handler(self, state) }
            for handler in handlers { handler(self, result) }
        }
        return result
    }
}

extension Request {
    /// The callbacks taken out of the lifecycle when the request lands.
    fileprivate struct Callbacks {
        var observers: [@Sendable (Result<Output, NetworkError>) -> Void]
        var completion: [CompletionHandler]
        var state: [StateHandler]
    }

    /// What a landing takes out of the lifecycle, to run after the lock.
    fileprivate struct Landing {
        let callbacks: Callbacks
        let delivery: Delivery
        let state: RequestState
    }
}
