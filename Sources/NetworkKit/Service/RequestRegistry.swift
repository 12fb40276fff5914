/// The service's map of the requests it holds, from `start` until they finish, and who waits
/// for it to be empty (a shutdown).
final class RequestRegistry: Sendable {
    private struct State {
        var requests: [RequestID: AnyRequest] = [:]
        /// Waiting for no request to be left, by the number each waiter took.
        var emptyWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Protected(State())

    func insert(_ request: AnyRequest) {
        state.withLock { $0.requests[request.id] = request }
    }

    func remove(_ id: RequestID) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            _ = state.requests.removeValue(forKey: id)
            guard state.requests.isEmpty else { return [] }
            defer { state.emptyWaiters = [:] }
            return Array(state.emptyWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func request(for id: RequestID) -> AnyRequest? {
        state.withLock { $0.requests[id] }
    }

    var all: [AnyRequest] {
        state.withLock { Array($0.requests.values) }
    }

    var count: Int {
        state.withLock { $0.requests.count }
    }

    /// Returns once no request is left, or the calling task is cancelled.
    func waitUntilEmpty() async {
        let number = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.requests.isEmpty || Task.isCancelled { return true }
                    state.emptyWaiters[number] = waiter
                    return false
                }
                if now { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.emptyWaiters.removeValue(forKey: number) }?.resume()
        }
    }
}
