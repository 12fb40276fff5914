import Foundation
#if canImport(Darwin)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by its own lock, for state shared across the delegate queue,
/// the parsing queue and callers' threads. Visible to the package's other modules, which
/// guard their shared state with it too.
///
/// The value and its lock live in one heap object (a `ManagedBuffer` whose header is the value
/// and whose one element is the lock): one allocation, where a class holding an `NSLock` takes
/// three on Linux (the object, the `NSLock`, and the mutex it allocates). The standard library's
/// `Mutex` needs macOS 15 and iOS 18, above the package's platforms; SwiftNIO's
/// `NIOLockedValueBox` is built the same way but would bring SwiftNIO into the core.
package struct Protected<Value>: @unchecked Sendable {
    // `@unchecked Sendable`: `storage`'s value is read and written only inside its lock
    // (`withLock`), so it is never touched by two threads at once.
    private let storage: LockedStorage<Value>

    /// Wraps `value`.
    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    /// A copy of the current value.
    package var snapshot: Value {
        withLock { $0 }
    }
}

#if canImport(Darwin)
/// The platform's lock: `os_unfair_lock` on Apple systems.
typealias PlatformLock = os_unfair_lock
#else
/// The platform's lock: a `pthread_mutex_t` elsewhere.
typealias PlatformLock = pthread_mutex_t
#endif

/// The heap object of a ``Protected``: its header is the value, its one element the lock, which
/// never moves while the object lives (a lock must not be copied once in use).
final class LockedStorage<Value>: ManagedBuffer<Value, PlatformLock> {
    /// A storage holding `value`, its lock initialized.
    static func make(_ value: Value) -> LockedStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` returns the class it was called on, typed as its superclass.
        let storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(lock, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
            #endif
        }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    /// Runs `body` on the value with the lock held.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }
}
