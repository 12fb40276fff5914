import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// URLSession's `timeoutInterval` for one transfer: fires when no byte has come for that long.
/// Each received piece pushes the deadline back; the check runs on an event loop, rescheduled
/// rather than reset per piece, so a busy transfer costs a clock read per piece.
final class IdleTimer: Sendable {
    private struct State {
        var lastActivity = NIODeadline.now()
        var scheduled: Scheduled<Void>?
        var onFire: (@Sendable () -> Void)?
        var fired = false
        var stopped = false
    }

    /// Nil when the request set no usable timeout.
    private let timeout: TimeAmount?
    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// A timer of `timeout` seconds (none when not positive and finite) checked on `eventLoop`.
    init(timeout: TimeInterval, eventLoop: any EventLoop) {
        self.timeout = timeout > 0 && timeout < 1e9 ? .nanoseconds(Int64(timeout * 1e9)) : nil
        self.eventLoop = eventLoop
    }

    /// Starts timing; `onFire` runs once if the transfer goes idle too long.
    func start(onFire: @escaping @Sendable () -> Void) {
        guard let timeout else { return }
        state.withLockedValue { state in
            guard !state.stopped else { return }
            state.onFire = onFire
            state.lastActivity = .now()
            state.scheduled = schedule(at: state.lastActivity + timeout)
        }
    }

    /// Something arrived: the idle time starts again.
    func touch() {
        guard timeout != nil else { return }
        state.withLockedValue { $0.lastActivity = .now() }
    }

    /// The transfer ended: the timer never fires.
    func stop() {
        let scheduled = state.withLockedValue { state -> Scheduled<Void>? in
            state.stopped = true
            state.onFire = nil
            defer { state.scheduled = nil }
            return state.scheduled
        }
        scheduled?.cancel()
    }

    /// True when the timer fired (the transfer was cancelled for being idle).
    var didFire: Bool {
        state.withLockedValue { $0.fired }
    }

    private func schedule(at deadline: NIODeadline) -> Scheduled<Void> {
        eventLoop.scheduleTask(deadline: deadline) { [self] in check() }
    }

    private func check() {
        guard let timeout else { return }
        let fire = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard !state.stopped else { return nil }
            let due = state.lastActivity + timeout
            if due > .now() {
                state.scheduled = schedule(at: due)
                return nil
            }
            state.fired = true
            defer { state.onFire = nil }
            return state.onFire
        }
        fire?()
    }
}
