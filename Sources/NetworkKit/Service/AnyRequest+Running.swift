import Foundation

/// What the pipeline tells a request as it runs, and how the request carries out what its
/// lifecycle decides. Callbacks that must precede the finish (state, progress) are queued while
/// the lock is held: a finish decided after them is queued after them.
extension AnyRequest {
    /// How `start` found the request.
    enum StartOutcome {
        case started
        /// Stopped before start: it has finished now.
        case finishedAtStart
        case startedBefore
    }

    /// Moves ready → running and enters the service's registry. Only the first start counts. A
    /// request whose `pipelineFinishesStops` (a download, a cache-then-network request) is
    /// finished by its pipeline when stopped.
    func start(_ context: StartContext, pipelineFinishesStops: Bool = false) -> StartOutcome {
        let action = withStateMachine { lifecycle in
            let action = lifecycle.start(context, pipelineFinishesStops: pipelineFinishesStops)
            if case .run(let report) = action {
                context.registry.insert(self)
                report.map(queue)
            }
            return action
        }
        switch action {
        case .run: return .started
        case .finish(let handlers): call(handlers); return .finishedAtStart
        case .ignore: return .startedBefore
        }
    }

    /// Keeps `item` so `cancel()` can stop it; stops it at once when the request was stopped or
    /// finished meanwhile.
    func attach(_ item: CancellableWork.Item) {
        if withStateMachine({ $0.attach(item) }) == .cancelAtOnce { item.cancel() }
    }

    /// Stops the request and finishes it with `error`: what `cancel()` does, for the kit's own
    /// reasons too (a size or time limit). The first finish wins.
    func stop(with error: NetworkError) {
        switch withStateMachine({ $0.stop(error) }) {
        case .ignore:
            break
        case .cancel(let work):
            work.cancel()
        case .cancelAndFinish(let work, let handlers):
            work.cancel()
            call(handlers)
        }
    }

    /// See `RunningRequest.commit()`.
    func commit() -> Bool {
        withStateMachine { $0.commit() }
    }

    /// Finishes the request from its pipeline: a stop wins over `result`, and an earlier finish
    /// over both. Returns what the request finished with and the metrics as kept.
    func finish(_ result: AnyResult, metrics: RequestMetrics) -> (result: AnyResult, metrics: RequestMetrics) {
        let action = withStateMachine { $0.finish(result, metrics: metrics) }
        if let handlers = action.handlersToCall { call(handlers) }
        return (action.result, action.metrics)
    }

    /// The result, once the request has finished.
    var result: AnyResult? {
        withStateMachine { $0.result }
    }

    /// True once the request was stopped or has finished.
    var isStopRequested: Bool {
        withStateMachine { $0.isStopRequested }
    }

    /// Calls `observer` with the result as soon as it exists (right away if it does).
    func observeAnyResult(_ observer: @escaping @Sendable (AnyResult) -> Void) {
        if let result = withStateMachine({ $0.observeResult(observer) }) { observer(result) }
    }

    /// A new attempt is about to be sent: count it, forget the last one's response and progress.
    func beginAttempt() -> Int {
        withStateMachine { $0.beginAttempt() }
    }

    /// The response head of the current attempt.
    func didReceive(head: ResponseHead) {
        withStateMachine { $0.receive(head: head) }
    }

    /// The business status the current attempt's parsers read, if any.
    func didRead(_ status: BusinessStatus?) {
        withStateMachine { $0.read(status) }
    }

    /// A download's file will be `total` bytes long (progress counts the whole file, bytes
    /// resumed from an earlier attempt included).
    func expectBody(total: Int64?) {
        withStateMachine { $0.expectBody(total: total) }
    }

    /// Download progress: `bytes` of the body have arrived.
    func didReceive(bodyBytes bytes: Int64) {
        reportProgress { $0.progress(.download, completedBytes: bytes) }
    }

    /// Upload progress.
    func didSend(bytes: Int64, of total: Int64?) {
        reportProgress { $0.progress(.upload, completedBytes: bytes, totalBytes: .some(total)) }
    }

    /// Makes sure a download progress handler sees 100% before completion.
    func didReceiveWholeBody(bytes: Int64) {
        reportProgress { $0.progress(.download, completedBytes: bytes, totalBytes: .some(bytes)) }
    }

    /// Queues `work` on the main actor while the request runs, under the lock, so it runs before
    /// a finish decided after it; returns false (and queues nothing) when the request is not
    /// running.
    func queueWhileRunning(_ work: @escaping @MainActor @Sendable () -> Void) -> Bool {
        withStateMachine { lifecycle in
            guard lifecycle.isActive else { return false }
            MainActorQueue.async(work)
            return true
        }
    }

    /// Cache then network: tells the cached-reply observers (`Service.replies(to:)`), then calls
    /// the completion handlers with the cached value on the main actor, and returns once they
    /// ran. The request keeps running; its handlers are called again when it finishes.
    func deliverCached(_ reply: CachedReply) async {
        guard let listeners = withStateMachine({ $0.cachedReplyListeners() }) else { return }
        for observer in listeners.observers { observer(reply) }
        let handlers = listeners.completionHandlers
        guard !handlers.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            MainActorQueue.async {
                for handler in handlers { handler(self, .success(reply.value)) }
                continuation.resume()
            }
        }
    }

    private func reportProgress(_ event: (inout StateMachine) -> StateMachine.ProgressReport?) {
        withStateMachine { lifecycle in
            guard let report = event(&lifecycle) else { return }
            MainActorQueue.async { for handler in report.handlers { handler(self, report.progress) } }
        }
    }

    private func queue(_ report: StateMachine.StateReport) {
        MainActorQueue.async { for handler in report.handlers { handler(self, report.state) } }
    }

    /// Carries out a finish: out of the service's registry before anyone hears of it (a batch
    /// that observes it may finish at once), the observers, then the handlers on the main actor
    /// (the queued block keeps the request alive until they have run).
    private func call(_ handlers: StateMachine.HandlersToCall) {
        handlers.context.registry.remove(id)
        let result = handlers.result
        for observer in handlers.resultObservers { observer(result) }
        let completionHandlers = handlers.completionHandlers, stateHandlers = handlers.stateHandlers
        guard !completionHandlers.isEmpty || !stateHandlers.isEmpty else { return }
        let state = handlers.state
        MainActorQueue.async {
            for handler in stateHandlers { handler(self, state) }
            for handler in completionHandlers { handler(self, result) }
        }
    }
}

/// The pipeline and the transfer see a running request through `RunningRequest`.
extension AnyRequest: RunningRequest {}
