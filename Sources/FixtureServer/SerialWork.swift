import Dispatch

/// A serial dispatch queue that async code hands blocking work to: each call runs after the
/// ones before it, never beside them, and off Swift's cooperative pool.
final class SerialWork: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `read` on the queue and returns what it returned.
    func value<T>(_ read: @escaping @Sendable () -> T) async -> sending T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.async { continuation.resume(returning: read()) }
        }
    }
}
