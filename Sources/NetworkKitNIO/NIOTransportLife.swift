#if NIO
import NIOConcurrencyHelpers

/// When the transport's client may be shut down: once it was invalidated (or freed) and no
/// transfer runs. Each method that returns true hands the caller the one shutdown.
final class NIOTransportLife: Sendable {
    private struct State {
        var active = 0
        var invalidated = false
        var shutDown = false
    }

    private let state = NIOLockedValueBox(State())

    /// A transfer starts; false once the transport was invalidated.
    func begin() -> Bool {
        state.withLockedValue { state in
            guard !state.invalidated else { return false }
            state.active += 1
            return true
        }
    }

    /// A transfer ended: true when it was the last one after invalidation.
    func end() -> Bool {
        state.withLockedValue { state in
            state.active -= 1
            return takeShutdown(&state)
        }
    }

    /// No more transfers start: true when none runs.
    func invalidate() -> Bool {
        state.withLockedValue { state in
            state.invalidated = true
            return takeShutdown(&state)
        }
    }

    /// The transport is being freed (so no transfer runs): true unless the client was shut down.
    func shutDownNow() -> Bool {
        state.withLockedValue { state in
            defer { state.shutDown = true }
            return !state.shutDown
        }
    }

    private func takeShutdown(_ state: inout State) -> Bool {
        guard state.invalidated, state.active == 0, !state.shutDown else { return false }
        state.shutDown = true
        return true
    }
}
#endif
