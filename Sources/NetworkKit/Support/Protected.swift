import Foundation

/// A value guarded by its own lock, for state shared across the delegate queue,
/// the parsing queue and callers' threads.
///
/// `@unchecked Sendable`: every read and write of `value` happens inside `lock`
/// (see `withLock`), so the wrapped value is never touched by two threads at once.
final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    var snapshot: Value {
        withLock { $0 }
    }
}
