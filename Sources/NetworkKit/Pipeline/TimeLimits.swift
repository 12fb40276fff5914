import Foundation

/// Finishes requests whose time limit runs out. One sleeping task per service wakes at the earliest
/// deadline, rather than one timer per request: adding and removing a deadline is a dictionary
/// change under a lock, and wakes nothing unless the new deadline is the earliest.
///
/// Limits are wall time, so they run on the continuous clock, not the configuration's (which
/// tests replace to skip retry waits).
final class TimeLimits: Sendable {
    private struct Entry {
        let deadline: ContinuousClock.Instant
        let expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [RequestID: Entry] = [:]
        /// When the sleeping task wakes, if one sleeps.
        var wake: ContinuousClock.Instant?
        var sleeper: Task<Void, Never>?
    }

    private let state = Protected(State())

    deinit {
        state.withLock { $0.sleeper?.cancel() }
    }

    /// Calls `expire` once `limit` has passed, unless `remove(id)` comes first.
    func add(_ id: RequestID, limit: Duration, expire: @escaping @Sendable () -> Void) {
        let deadline = ContinuousClock.now.advanced(by: limit)
        state.withLock { state in
            state.entries[id] = Entry(deadline: deadline, expire: expire)
            if let wake = state.wake, wake <= deadline { return }
            sleep(until: deadline, in: &state)
        }
    }

    /// Forgets the deadline of a request that finished.
    func remove(_ id: RequestID) {
        // The sleeper may still wake for it and find nothing: cheaper than waking it now.
        state.withLock { _ = $0.entries.removeValue(forKey: id) }
    }

    /// Replaces the sleeping task by one that wakes at `deadline`. Call under the lock.
    private func sleep(until deadline: ContinuousClock.Instant, in state: inout State) {
        state.sleeper?.cancel()
        state.wake = deadline
        state.sleeper = Task { [weak self] in
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return  // replaced by an earlier deadline, or the service is gone
            }
            self?.expireDue()
        }
    }

    /// Expires what is due, then sleeps until the next deadline, if any.
    private func expireDue() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> [Entry] in
            let due = state.entries.filter { $0.value.deadline <= now }
            for id in due.keys { state.entries.removeValue(forKey: id) }
            state.wake = nil
            state.sleeper = nil
            if let next = state.entries.values.map(\.deadline).min() {
                sleep(until: next, in: &state)
            }
            return Array(due.values)
        }
        for entry in due { entry.expire() }
    }
}

/// Fails transfers that go idle: no byte received or sent for their request's
/// `timeout`. One sleeping task per service checks the running transfers every
/// `interval` while there are any, rather than a timer per transfer: a transfer's bytes only move
/// its last-activity time, under the lock it takes for them anyway. So a transfer fails within
/// its timeout plus `interval`. A transfer whose request has no idle timeout (`IdleTimeout`) is
/// never watched: adding and removing it take no lock.
final class IdleWatch: Sendable {
    /// How often the running transfers are checked.
    static let interval: Duration = .milliseconds(100)

    private struct State {
        var transfers: [ObjectIdentifier: Transfer] = [:]
        var ticker: Task<Void, Never>?
    }

    private let state = Protected(State())

    deinit {
        state.withLock { $0.ticker?.cancel() }
    }

    /// How many transfers are watched now.
    var watchedCount: Int {
        state.withLock { $0.transfers.count }
    }

    /// Watches `transfer` until `remove(_:)`, if it has an idle timeout; does nothing otherwise.
    func add(_ transfer: Transfer) {
        guard transfer.idleTimeout != nil else { return }
        state.withLock { state in
            state.transfers[ObjectIdentifier(transfer)] = transfer
            guard state.ticker == nil else { return }
            state.ticker = Task { [weak self] in
                while true {
                    do {
                        try await Task.sleep(for: Self.interval)
                    } catch {
                        return  // the service is gone
                    }
                    guard let self, self.tick() else { return }
                }
            }
        }
    }

    /// Stops watching `transfer`; does nothing for one without an idle timeout.
    func remove(_ transfer: Transfer) {
        guard transfer.idleTimeout != nil else { return }
        state.withLock { _ = $0.transfers.removeValue(forKey: ObjectIdentifier(transfer)) }
    }

    /// Checks every watched transfer; returns false (and lets the ticker end) when none is left.
    private func tick() -> Bool {
        let transfers = state.withLock { state -> [Transfer]? in
            guard !state.transfers.isEmpty else {
                state.ticker = nil
                return nil
            }
            return Array(state.transfers.values)
        }
        guard let transfers else { return false }
        let now = ContinuousClock.now
        for transfer in transfers { transfer.checkIdle(now: now) }
        return true
    }
}
