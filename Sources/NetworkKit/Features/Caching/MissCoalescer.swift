import Foundation

/// Lets one request per key go to the network while concurrent misses of the same key wait
/// for it (``CachePolicy/coalescesMisses``).
final class MissCoalescer: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var leaders: Set<String> = []
        var waiters: [String: [Waiter]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Protected(State())

    /// True when the caller leads `key` (it must call `finish(_:)`); otherwise waits until the
    /// leader finishes or the calling task is cancelled, and returns false.
    func lead(_ key: String) async -> Bool {
        let id: UInt64? = state.withLock { state in
            if state.leaders.insert(key).inserted { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let waiting = state.withLock { state -> Bool in
                    guard state.leaders.contains(key), !Task.isCancelled else { return false }
                    state.waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters[key]?.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters[key]?.remove(at: index)
            }
            waiter?.continuation.resume()
        }
        return false
    }

    /// The leader of `key` is done: wakes everyone waiting for it.
    func finish(_ key: String) {
        let waiters = state.withLock { state -> [Waiter] in
            state.leaders.remove(key)
            return state.waiters.removeValue(forKey: key) ?? []
        }
        for waiter in waiters { waiter.continuation.resume() }
    }
}
