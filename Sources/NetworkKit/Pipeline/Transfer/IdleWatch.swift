import Foundation

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
