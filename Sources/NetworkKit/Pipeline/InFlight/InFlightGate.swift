/// A service's limit on requests in flight: requests pass through it before each transfer and
/// leave it after, and those that must wait are resumed in the order `InFlightLimits` decides.
final class InFlightGate: Sendable {
    private struct State {
        var limits = InFlightLimits()
        /// The requests waiting, resumed with true when let in and false when they gave up.
        var waiting: [RequestID: CheckedContinuation<Bool, Never>] = [:]
    }

    private let state = Protected(State())

    /// Lets request `id` in at once, with nothing to wait for (true), or registers nothing and
    /// says it must wait (false): the one step without a task switch for the common case.
    func tryEnter(_ id: RequestID, host: String, priority: RequestPriority, limits: InFlightLimits.Limits) -> Bool {
        state.withLock { state in
            guard state.limits.enter(id, host: host, priority: priority, limits: limits) == .proceed else {
                _ = state.limits.withdraw(id)
                return false
            }
            return true
        }
    }

    /// Waits until request `id` may transfer to `host`; returns false (and holds no place) when the
    /// calling task was cancelled first.
    func enter(_ id: RequestID, host: String, priority: RequestPriority, limits: InFlightLimits.Limits) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let admitted: Bool? = state.withLock { state in
                    // A cancel that came first has run its handler already and found nothing.
                    if Task.isCancelled { return false }
                    guard state.limits.enter(id, host: host, priority: priority, limits: limits) == .wait else { return true }
                    state.waiting[id] = continuation
                    return nil
                }
                if let admitted { continuation.resume(returning: admitted) }
            }
        } onCancel: {
            let gaveUp = state.withLock { state in
                state.limits.withdraw(id) ? state.waiting.removeValue(forKey: id) : nil
            }
            gaveUp?.resume(returning: false)
        }
    }

    /// A transfer to `host` ended: lets in the waiting requests that fit now.
    func leave(host: String) {
        let admitted = state.withLock { state in
            state.limits.leave(host: host).compactMap { state.waiting.removeValue(forKey: $0) }
        }
        for continuation in admitted { continuation.resume(returning: true) }
    }

    /// How many requests wait.
    var waitingCount: Int {
        state.withLock { $0.limits.waitingCount }
    }
}
