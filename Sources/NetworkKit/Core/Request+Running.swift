import Foundation

/// How `start` found the request.
enum StartOutcome {
    case started
    case cancelledBeforeStart
    case alreadyStarted
}

/// What the pipeline tells a request as it runs: state, transfers, progress.
extension Request {
    /// Moves ready → running, records where to deliver and enters the service's registry. Only
    /// the first start counts. A request that `landsFromPipeline` (a download) is landed by its
    /// pipeline when stopped.
    func begin(_ delivery: Delivery, landsFromPipeline: Bool = false) -> StartOutcome {
        let outcome = lifecycle.withLock { lifecycle -> StartOutcome in
            guard lifecycle.delivery == nil else { return .alreadyStarted }
            lifecycle.delivery = delivery
            lifecycle.landsFromPipeline = landsFromPipeline
            if lifecycle.cancelRequested { return .cancelledBeforeStart }
            lifecycle.state = .running
            // Under the lock: no landing can come first and leave the request in the registry
            // for good (entered after the lock, a request that a state handler cancels at once
            // would be removed before it was entered, and the registry would keep it alive).
            delivery.registry.insert(self)
            return .started
        }
        if outcome == .started { notifyState(.running) }
        return outcome
    }

    /// Keeps the pipeline's task so `cancel()` can stop it; cancels it at once when the request
    /// was cancelled meanwhile.
    func attach(pipeline task: Task<Void, Never>) {
        keep({ $0.pipelineTask = task }) { task.cancel() }
    }

    /// Keeps the wait before a retry so `cancel()` can stop it; cancels it at once when the
    /// request was cancelled meanwhile.
    func attach(backoff task: Task<Void, any Error>) {
        keep({ $0.backoffTask = task }) { task.cancel() }
    }

    /// The result, once the request has landed.
    var result: Result<Output, NetworkError>? {
        lifecycle.withLock { $0.result }
    }

    /// True once `cancel()` was called.
    var isCancelRequested: Bool {
        lifecycle.withLock { $0.cancelRequested }
    }

    /// A new attempt is about to be sent: count it, forget the last one's response and progress.
    func beginAttempt() -> Int {
        lifecycle.withLock { lifecycle in
            lifecycle.attempts += 1
            lifecycle.head = nil
            lifecycle.expectedBytes = nil
            lifecycle.downloadThrottle = ProgressThrottle()
            lifecycle.uploadThrottle = ProgressThrottle()
            return lifecycle.attempts
        }
    }

    /// Keeps the transfer of the current attempt so `cancel()` can stop it; cancels it at once
    /// when the request was cancelled meanwhile.
    func attach(transfer task: any TransportTask) {
        keep({ $0.transportTask = task }) { task.cancel() }
    }

    func didReceive(head: ResponseHead) {
        let expected = head.deliveredLength
        lifecycle.withLock {
            $0.head = head
            $0.expectedBytes = expected
        }
    }

    /// A download's file will be `total` bytes long (progress counts the whole file, bytes
    /// resumed from an earlier attempt included).
    func expectBody(total: Int64?) {
        lifecycle.withLock { $0.expectedBytes = total }
    }

    /// Download progress: `bytes` of the body have arrived.
    func didReceive(bodyBytes bytes: Int64) {
        guard isProgressWatched.snapshot else { return }
        report { lifecycle in
            TransferProgress(direction: .download, completedBytes: bytes, totalBytes: lifecycle.expectedBytes)
        }
    }

    /// Upload progress.
    func didSend(bytes: Int64, of total: Int64?) {
        guard isProgressWatched.snapshot else { return }
        report { _ in
            TransferProgress(direction: .upload, completedBytes: bytes, totalBytes: total)
        }
    }

    /// Makes sure a download progress handler sees 100% before completion.
    func didReceiveWholeBody(bytes: Int64) {
        guard isProgressWatched.snapshot else { return }
        report { _ in
            TransferProgress(direction: .download, completedBytes: bytes, totalBytes: bytes)
        }
    }

    /// Keeps something for `cancel()` to stop (`store` puts it in the lifecycle); runs `stop` at
    /// once instead when the request was cancelled or landed meanwhile.
    private func keep(_ store: (inout Lifecycle<Output>) -> Void, stop: () -> Void) {
        let cancelled = lifecycle.withLock { lifecycle -> Bool in
            guard !lifecycle.cancelRequested, lifecycle.result == nil else { return true }
            store(&lifecycle)
            return false
        }
        if cancelled { stop() }
    }

    private func report(_ progress: (Lifecycle<Output>) -> TransferProgress) {
        // Queued while the lock is held: a result set after this check is queued after it, so
        // progress never follows completion on the callback queue. (Queued after releasing the
        // lock, a report could lose that race.)
        lifecycle.withLock { lifecycle in
            guard let (value, handlers, queue) = lifecycle.progressReport(progress) else { return }
            queue.async { for handler in handlers { handler(self, value) } }
        }
    }

    private func notifyState(_ state: RequestState) {
        // Queued under the lock, and only before the result, for the same reason as progress.
        lifecycle.withLock { lifecycle in
            let handlers = lifecycle.stateHandlers
            guard !handlers.isEmpty, lifecycle.result == nil, let queue = lifecycle.delivery?.callbackQueue else { return }
            queue.async { for handler in handlers { handler(self, state) } }
        }
    }
}
