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
