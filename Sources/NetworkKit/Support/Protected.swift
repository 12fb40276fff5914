import Foundation

/// A value guarded by its own lock, for state shared across the delegate queue,
/// the parsing queue and callers' threads. Visible to the package's other modules, which
/// guard their shared state with it too.
///
/// `@unchecked Sendable`: every read and write of `value` happens inside `lock`
/// (see `withLock`), so the wrapped value is never touched by two threads at once.
package final class Protected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var snapshot: Value {
        withLock { $0 }
    }
}
