import Foundation

/// A service's shutdown: where it is, and the one task that carries it out.
enum ShutdownPhase: Sendable {
    /// The service takes requests.
    case open
    /// ``Service/shutdown(gracePeriod:)`` began; every caller awaits this task.
    case shuttingDown(Task<Void, Never>)
}

extension Service {
    /// Shuts the service down gracefully, as a server stops its parts: from the first call on, a
    /// new request fails at once with ``NetworkError/serviceShutDown``; the service's open
    /// WebSockets close with `1001` (going away) and its streams end with that error; the
    /// requests in flight have `gracePeriod` (on the service's ``ServiceConfiguration/clock``)
    /// to finish, and those still running then end with that error too; last, the transport is
    /// shut down (its connections closed, its threads let go). Returns once all of this is done.
    ///
    /// Safe to call more than once, from anywhere: a later call waits for the first to finish.
    /// Cancelling the calling task cuts the grace period short.
    ///
    /// ```swift
    /// await api.shutdown(gracePeriod: .seconds(10))
    /// ```
    public func shutdown(gracePeriod: Duration) async {
        let task = shutdownPhase.withLock { phase -> Task<Void, Never> in
            if case .shuttingDown(let task) = phase { return task }
            let task = Task { await self.performShutdown(gracePeriod: gracePeriod) }
            phase = .shuttingDown(task)
            return task
        }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// True once ``shutdown(gracePeriod:)`` began: the service sends nothing new.
    public var isShutDown: Bool {
        shutdownPhase.withLock { phase in
            if case .open = phase { return false }
            return true
        }
    }

    /// The shutdown itself, run once.
    private func performShutdown(gracePeriod: Duration) async {
        // Long-lived requests never finish on their own: they end now.
        for request in requests.all {
            if request.options.kind.endsAtShutdown { request.stop(with: .serviceShutDown) }
        }
        await openWebSockets.closeAll(code: 1001, reason: "going away")
        let clock = pipelineSettings.clock
        let requests = self.requests
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await requests.waitUntilEmpty() }
            group.addTask { try? await RequestPipeline.sleep(on: clock, for: gracePeriod) }
            await group.next()
            group.cancelAll()
        }
        for request in requests.all { request.stop(with: .serviceShutDown) }
        // What a stop lets the pipeline clean up (a download's file) is done before the
        // transport goes; the stops are immediate, so this wait is short.
        await requests.waitUntilEmpty()
        await transport.shutdown()
    }
}
