/// Decides which requests may transfer now when a service limits its requests in flight, in
/// total and per host; the rest wait, ordered by ``RequestPriority`` and then by arrival.
///
/// A state machine without effects: each event returns what to do, and `InFlightGate` does it
/// (resumes the requests let in). Tested as tables without a network.
struct InFlightLimits: Sendable {
    /// The limits one request was started with (its service's configuration then).
    struct Limits: Sendable, Equatable {
        /// At most this many transfers at once in the service; nil for no limit.
        var total: Int?
        /// At most this many transfers at once to one host; nil for no limit.
        var perHost: Int?
    }

    /// What a request that asks to transfer must do.
    enum Entry: Equatable {
        /// Transfer now; call `leave(host:)` when done.
        case proceed
        /// Wait until `leave` or `withdraw` names it.
        case wait
    }

    private struct Waiter {
        let id: RequestID
        let host: String
        let priority: RequestPriority
        let limits: Limits
        let arrival: UInt64
    }

    /// Transfers under way, in all and per host.
    private(set) var running = 0
    private(set) var runningPerHost: [String: Int] = [:]
    private var waiting: [Waiter] = []
    private var arrivals: UInt64 = 0

    /// How many requests wait.
    var waitingCount: Int { waiting.count }

    /// Request `id` asks to transfer to `host`. It proceeds when both of its limits leave room and
    /// no waiting request of its host or higher priority would be passed over; otherwise it waits.
    mutating func enter(_ id: RequestID, host: String, priority: RequestPriority, limits: Limits) -> Entry {
        let waiter = Waiter(id: id, host: host, priority: priority, limits: limits, arrival: arrivals)
        arrivals += 1
        if fits(waiter), !waiting.contains(where: { $0.priority >= priority && fits($0) }) {
            admit(waiter)
            return .proceed
        }
        waiting.append(waiter)
        return .wait
    }

    /// A transfer to `host` ended: returns the waiting requests that may transfer now, most
    /// important first (each now counts as running).
    mutating func leave(host: String) -> [RequestID] {
        running = max(0, running - 1)
        let left = (runningPerHost[host] ?? 1) - 1
        runningPerHost[host] = left > 0 ? left : nil
        var admitted: [RequestID] = []
        while let next = nextFitting() {
            let waiter = waiting.remove(at: next)
            admit(waiter)
            admitted.append(waiter.id)
        }
        return admitted
    }

    /// A waiting request gave up (it was cancelled): true when it was waiting, and is no longer.
    mutating func withdraw(_ id: RequestID) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
        waiting.remove(at: index)
        return true
    }

    private func fits(_ waiter: Waiter) -> Bool {
        if let total = waiter.limits.total, running >= max(1, total) { return false }
        if let perHost = waiter.limits.perHost, runningPerHost[waiter.host, default: 0] >= max(1, perHost) { return false }
        return true
    }

    /// The index of the most important waiting request that fits, the earliest among equals.
    private func nextFitting() -> Int? {
        var best: Int?
        for index in waiting.indices where fits(waiting[index]) {
            guard let current = best else { best = index; continue }
            let candidate = waiting[index], chosen = waiting[current]
            if candidate.priority > chosen.priority
                || (candidate.priority == chosen.priority && candidate.arrival < chosen.arrival) {
                best = index
            }
        }
        return best
    }

    private mutating func admit(_ waiter: Waiter) {
        running += 1
        runningPerHost[waiter.host, default: 0] += 1
    }
}
