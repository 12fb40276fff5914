/// A service's limit on requests in flight: requests pass through it before each transfer and
/// leave it after, and those that must wait are resumed in the order `InFlightLimits` decides.
/// A request takes its place in line where it begins to wait (`enter`, on the pipeline's path),
/// so requests of one priority go in that order, whenever their waits begin to run.
final class InFlightGate: Sendable {
    private struct State {
        var limits = InFlightLimits()
        /// The requests whose wait is running, resumed with true when let in and false when they gave up.
        var waiting: [RequestID: CheckedContinuation<Bool, Never>] = [:]
        /// Requests let in before their wait began to run; their wait returns at once.
        var admittedEarly: Set<RequestID> = []
    }

    private let state = Protected(State())

    /// Lets request `id` in at once (true), or puts it in line and returns false: the caller then
    /// calls `waitForTurn`, whose cancellation gives the place up. The one step without a task switch.
    func enter(_ id: RequestID, host: String, priority: RequestPriority, limits: InFlightLimits.Limits) -> Bool {
        state.withLock { $0.limits.enter(id, host: host, priority: priority, limits: limits) == .proceed }
    }

    /// Waits until request `id`, in line since `enter`, may transfer to `host`; returns false (and
    /// holds no place) when the calling task was cancelled first.
    func waitForTurn(_ id: RequestID, host: String) async -> Bool {
        enum Now { case admitted, wait, cancelled, cancelledHoldingPlace }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Now = state.withLock { state in
                    if state.admittedEarly.remove(id) != nil { return Task.isCancelled ? .cancelledHoldingPlace : .admitted }
                    // A cancel that came first has run its handler already and withdrawn it.
                    if Task.isCancelled { return .cancelled }
                    state.waiting[id] = continuation
                    return .wait
                }
                switch now {
                case .admitted: continuation.resume(returning: true)
                case .wait: break
                case .cancelled: continuation.resume(returning: false)
                case .cancelledHoldingPlace:
                    // The place it was given goes to the next in line.
                    leave(host: host)
                    continuation.resume(returning: false)
                }
            }
        } onCancel: {
            giveUp(id, host: host)
        }
    }

    /// Request `id` gives up its place in line, or, when it was let in before its wait ran, the
    /// place it was given.
    private func giveUp(_ id: RequestID, host: String) {
        enum Step { case none, resume(CheckedContinuation<Bool, Never>), release }
        let step: Step = state.withLock { state in
            if state.limits.withdraw(id) { return state.waiting.removeValue(forKey: id).map(Step.resume) ?? .none }
            if state.admittedEarly.remove(id) != nil { return .release }
            return .none
        }
        switch step {
        case .none: break
        case .resume(let continuation): continuation.resume(returning: false)
        case .release: leave(host: host)
        }
    }

    /// A transfer to `host` ended: lets in the waiting requests that fit now.
    func leave(host: String) {
        let admitted = state.withLock { state in
            state.limits.leave(host: host).compactMap { id -> CheckedContinuation<Bool, Never>? in
                guard let continuation = state.waiting.removeValue(forKey: id) else {
                    state.admittedEarly.insert(id)
                    return nil
                }
                return continuation
            }
        }
        for continuation in admitted { continuation.resume(returning: true) }
    }

    /// How many requests wait.
    var waitingCount: Int {
        state.withLock { $0.limits.waitingCount }
    }
}
