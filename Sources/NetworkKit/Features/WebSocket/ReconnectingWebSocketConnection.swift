import Foundation

/// A connection that, when the server ends it, opens the next one through the service and goes
/// on reading there (``WebSocketOptions/reconnection`` says when). The reconnection runs in the
/// reader's task, inside ``receive()``: a socket nobody reads notices no end. While it waits and
/// reopens, ``send(_:)`` fails with ``WebSocketError/notOpen`` from the ended connection; the
/// app's `resubscribe` hook runs on each new connection before its first message is read.
final class ReconnectingWebSocketConnection: WebSocketConnection {
    /// What the app sends on each new connection, such as its subscriptions.
    typealias Resubscribe = @Sendable (WebSocket) async throws -> Void

    private struct State {
        var current: any WebSocketConnection
        var reconnector: WebSocketReconnector
        /// A message arrived on the current connection.
        var delivered = false
        /// The wait before the next upgrade, once the current connection ended and one is due.
        var pendingWait: Duration?
        /// How the socket ended for good: nil while it may still reconnect.
        var ended: Result<Void, NetworkError>?
        /// The app closed the socket.
        var closedByApp = false
        /// The socket the app holds, for the hook (weak: the socket holds this connection).
        weak var socket: WebSocket?
        /// The wait before the next upgrade while it runs, which the app's close cuts short.
        var waiting: Task<Void, Never>?
    }

    private let state: Protected<State>
    private let reopening: WebSocketReopening
    private let resubscribe: Resubscribe?

    init(first: any WebSocketConnection, reopening: WebSocketReopening, resubscribe: Resubscribe?) {
        state = Protected(State(current: first, reconnector: WebSocketReconnector(policy: reopening.policy)))
        self.reopening = reopening
        self.resubscribe = resubscribe
    }

    /// Gives the hook the socket the app holds.
    func attach(_ socket: WebSocket) {
        state.withLock { $0.socket = socket }
    }

    var subprotocol: String? { state.withLock { $0.current.subprotocol } }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        while true {
            let (current, wait, ended) = state.withLock { ($0.current, $0.pendingWait, $0.ended) }
            if let ended { try ended.get(); return nil }
            if let wait {
                try await reconnect(after: wait)
                continue
            }
            let end: NetworkError?
            do {
                if let message = try await current.receive() {
                    state.withLock { $0.delivered = true }
                    return message
                }
                end = nil
            } catch .cancelled {
                throw .cancelled
            } catch {
                end = error
            }
            try connectionEnded(end)
        }
    }

    /// Decides what follows the current connection's end (`error` nil for a normal close): a wait
    /// before the next upgrade, or the socket's end, thrown when it is a failure.
    private func connectionEnded(_ error: NetworkError?) throws(NetworkError) {
        let ended = state.withLock { state -> Result<Void, NetworkError>? in
            if state.closedByApp {
                state.ended = .success(())
            } else if let wait = state.reconnector.next(after: .connectionEnded(error, deliveredMessages: state.delivered)) {
                state.pendingWait = wait
            } else {
                state.ended = error.map { .failure($0) } ?? .success(())
            }
            return state.ended
        }
        try ended?.get()
    }

    /// Waits `wait`, then opens the next connection and runs the hook on it; a failed upgrade
    /// leaves the next wait pending, or ends the socket with the upgrade's error.
    private func reconnect(after wait: Duration) async throws(NetworkError) {
        let sleep = reopening.wait
        let waiting = Task { _ = try? await sleep(wait) }
        // The app's close reads `waiting` under the same lock: it either sees this wait and cuts
        // it short, or closed before it was stored, and then the wait ends at once.
        let closedAlready = state.withLock { state in
            state.waiting = waiting
            return state.closedByApp
        }
        if closedAlready { waiting.cancel() }
        await withTaskCancellationHandler {
            await waiting.value
        } onCancel: {
            waiting.cancel()
        }
        state.withLock { $0.waiting = nil }
        if Task.isCancelled { throw .cancelled }
        // The app may have closed the socket during the wait: no new connection then.
        let closed = state.withLock { state in
            if state.closedByApp { state.ended = .success(()) }
            return state.closedByApp
        }
        if closed { return }
        let opened: any WebSocketConnection
        do throws(NetworkError) {
            let response = try await reopening.reopen()
            guard let connection = response.webSocket else {
                throw NetworkError.invalidRequest("the reopened upgrade returned no connection")
            }
            opened = connection
        } catch .cancelled {
            throw .cancelled
        } catch {
            let ended = state.withLock { state -> NetworkError? in
                if let next = state.reconnector.next(after: .upgradeFailed(error)) {
                    state.pendingWait = next
                    return nil
                }
                state.ended = .failure(error)
                return error
            }
            if let ended { throw ended }
            return
        }
        let (socket, closedByApp) = state.withLock { state in
            state.current = opened
            state.delivered = false
            state.pendingWait = nil
            return (state.socket, state.closedByApp)
        }
        if closedByApp {
            await opened.close(code: 1000, reason: "")
            return
        }
        if let resubscribe, let socket {
            do {
                try await resubscribe(socket)
            } catch NetworkError.cancelled, is CancellationError {
                throw .cancelled
            } catch {
                // A connection that fails its hook ends as that failure would; an error not the
                // kit's is the app's own, as an interceptor's would be.
                await opened.close(code: 1011, reason: "")
                try connectionEnded(error as? NetworkError ?? .adaptationFailed(error))
            }
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await state.withLock { $0.current }.send(message)
    }

    func ping(_ payload: Data) async throws(NetworkError) {
        try await state.withLock { $0.current }.ping(payload)
    }

    func close(code: UInt16, reason: String) async {
        let (current, waiting) = state.withLock { state in
            state.closedByApp = true
            return (state.current, state.waiting)
        }
        waiting?.cancel()
        await current.close(code: code, reason: reason)
    }
}
