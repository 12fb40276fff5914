#if NIO
import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// URLSession's `timeoutInterval` for one transfer: it fires when nothing has been received or
/// sent for that long. Each piece pushes the deadline back (a clock read); the transport's
/// `IdleWatch` checks every running transfer's timer a few times a second, so a request costs no
/// timer of its own on an event loop.
final class IdleTimer: Sendable {
    private struct State {
        var lastActivity = NIODeadline.now()
        var onFire: (@Sendable () -> Void)?
        var fired = false
    }

    /// Nil when the request set no usable timeout.
    let timeout: TimeAmount?
    private let state = NIOLockedValueBox(State())

    /// A timer of `timeout` seconds (none when not positive and finite).
    init(timeout: TimeInterval) {
        self.timeout = timeout > 0 && timeout < 1e9 ? .nanoseconds(Int64(timeout * 1e9)) : nil
    }

    /// What to do if the transfer goes idle too long; runs at most once, at once if the timer
    /// has fired already.
    func onFire(_ action: @escaping @Sendable () -> Void) {
        let firedAlready = state.withLockedValue { state -> Bool in
            guard !state.fired else { return true }
            state.onFire = action
            return false
        }
        if firedAlready { action() }
    }

    /// Something arrived or was sent: the idle time starts again.
    func touch() {
        guard timeout != nil else { return }
        state.withLockedValue { $0.lastActivity = .now() }
    }

    /// True when the timer fired (the transfer was cancelled for being idle).
    var didFire: Bool {
        state.withLockedValue { $0.fired }
    }

    /// Fires the timer if the transfer has been idle for its timeout at `now`.
    func check(now: NIODeadline) {
        guard let timeout else { return }
        let fire = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard !state.fired, state.lastActivity + timeout <= now else { return nil }
            state.fired = true
            defer { state.onFire = nil }
            return state.onFire
        }
        fire?()
    }
}

/// Checks the idle timers of a transport's running transfers every 100 ms, on one event loop,
/// while there are any; the check stops by itself when none is left.
final class IdleWatch: Sendable {
    static let interval = TimeAmount.milliseconds(100)

    private struct State {
        var timers: [ObjectIdentifier: IdleTimer] = [:]
        var task: RepeatedTask?
    }

    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Watches `timer` until `remove(_:)`.
    func add(_ timer: IdleTimer) {
        guard timer.timeout != nil else { return }
        state.withLockedValue { state in
            state.timers[ObjectIdentifier(timer)] = timer
            if state.task == nil {
                state.task = eventLoop.scheduleRepeatedTask(initialDelay: Self.interval, delay: Self.interval) { [self] task in
                    tick(task)
                }
            }
        }
    }

    func remove(_ timer: IdleTimer) {
        guard timer.timeout != nil else { return }
        _ = state.withLockedValue { $0.timers.removeValue(forKey: ObjectIdentifier(timer)) }
    }

    /// Stops watching (the transport shuts down).
    func stop() {
        state.withLockedValue { state in
            state.task?.cancel()
            state.task = nil
            state.timers = [:]
        }
    }

    private func tick(_ task: RepeatedTask) {
        let timers = state.withLockedValue { state -> [IdleTimer] in
            if state.timers.isEmpty {
                task.cancel()
                state.task = nil
            }
            return Array(state.timers.values)
        }
        let now = NIODeadline.now()
        for timer in timers { timer.check(now: now) }
    }
}
#endif
