import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An open WebSocket on a `URLSessionWebSocketTask`, as ``URLSessionTransport`` hands it over.
///
/// The task reads a message only when asked (one `receive` outstanding at a time), so a reader
/// that falls behind stops the reading. A reader cancelled while it waits leaves that `receive`
/// outstanding: the message it brings is kept for the next reader, never lost. The platform
/// answers pings, checks text as UTF-8 and holds messages to ``WebSocketOptions/maxMessageBytes``
/// (its `maximumMessageSize`); the keep-alive ping is the connection's own.
final class URLSessionWebSocketConnection: WebSocketConnection {
    let task: URLSessionWebSocketTask
    let subprotocol: String?
    private let state = Protected(State())
    private let maxMessageBytes: Int64

    /// What the connection's callers and the session's callbacks share, under `state`'s lock.
    private struct State {
        /// The reader waiting for the outstanding `receive`.
        var reader: CheckedContinuation<Received, Never>?
        /// What the outstanding `receive` brought while no reader waited.
        var kept: Received?
        /// Whether a `receive` of the task is outstanding.
        var receiving = false
        /// Whether the app began the closing handshake.
        var appClosed = false
        /// How the kit itself ended the connection (a keep-alive ping unanswered).
        var failure: NetworkError?
        /// Whether the task completed.
        var ended = false
        /// Callers of `close` waiting for the task to complete.
        var closers: [CheckedContinuation<Void, Never>] = []
        /// Whether a keep-alive ping is unanswered.
        var pongPending = false
        var keepAlive: Task<Void, Never>?
    }

    /// What one `receive` of the task brought.
    private enum Received: Sendable {
        case message(WebSocketMessage)
        case end(NetworkError?)
        case cancelled
    }

    /// How long `close` waits for the server's close before the task is dropped.
    static let closeTimeout: Duration = .seconds(5)

    init(task: URLSessionWebSocketTask, subprotocol: String?, options: WebSocketOptions) {
        self.task = task
        self.subprotocol = subprotocol
        maxMessageBytes = options.maxMessageBytes
        if let interval = options.pingInterval {
            let keepAlive = startKeepAlive(every: interval)
            state.withLock { $0.keepAlive = keepAlive }
        }
    }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        let received = await withTaskCancellationHandler {
            await withCheckedContinuation { (reader: CheckedContinuation<Received, Never>) in
                enum Next { case resume(Received), start, wait }
                let next: Next = state.withLock { state in
                    if Task.isCancelled { return .resume(.cancelled) }
                    if let kept = state.kept {
                        state.kept = nil
                        return .resume(kept)
                    }
                    state.reader = reader
                    if state.receiving { return .wait }
                    state.receiving = true
                    return .start
                }
                switch next {
                case .resume(let received): reader.resume(returning: received)
                case .start: receiveOne()
                case .wait: break
                }
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<Received, Never>? in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: .cancelled)
        }
        switch received {
        case .message(let message): return message
        case .end(nil): return nil
        case .end(let error?): throw error
        case .cancelled: throw .cancelled
        }
    }

    /// Asks the task for its next message and hands it to the waiting reader, or keeps it.
    private func receiveOne() {
        task.receive { [self] result in
            let received: Received
            switch result {
            case .success(let message):
                switch message {
                case .string(let text): received = .message(.text(text))
                case .data(let data): received = .message(.binary(data))
                @unknown default: received = .end(.webSocket(.protocolViolation(code: 1003, reason: "a message of an unknown kind")))
                }
            case .failure(let error): received = .end(ending(after: error))
            }
            let reader = state.withLock { state -> CheckedContinuation<Received, Never>? in
                state.receiving = false
                defer { state.reader = nil }
                if state.reader == nil { state.kept = received }
                return state.reader
            }
            reader?.resume(returning: received)
        }
    }

    /// How the connection ended, when the task's `receive` failed with `error`: nil for a normal end.
    private func ending(after error: any Error) -> NetworkError? {
        let (appClosed, failure) = state.withLock { ($0.appClosed, $0.failure) }
        return Self.ending(failure: failure, appClosed: appClosed, closeCode: task.closeCode.rawValue,
                           closeReason: task.closeReason, error: error, maxMessageBytes: maxMessageBytes)
    }

    /// How a connection ended, from what is known when its task's `receive` failed: the kit's
    /// own `failure` first; then the app's close (a normal end); a message over the limit (the
    /// platform's `EMSGSIZE`) as 1009; the server's close code (1000, 1001 and 1005 are normal
    /// ends, 1006 a drop); a lost connection as a drop; any other error as the transport's failure.
    static func ending(failure: NetworkError?, appClosed: Bool, closeCode: Int, closeReason: Data?,
                       error: any Error, maxMessageBytes: Int64) -> NetworkError? {
        if let failure { return failure }
        if appClosed { return nil }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(POSIXErrorCode.EMSGSIZE.rawValue) {
            return .webSocket(.protocolViolation(code: 1009, reason: "a message over \(maxMessageBytes) bytes"))
        }
        switch closeCode {
        case 1000, 1001, 1005: return nil
        case 1006: return .webSocket(.dropped)
        case 1...4999:
            let reason = closeReason.flatMap { String(data: $0, encoding: .utf8) } ?? ""
            return .webSocket(.closed(code: UInt16(closeCode), reason: reason))
        default: break
        }
        if let urlError = error as? URLError, urlError.code == .networkConnectionLost {
            return .webSocket(.dropped)
        }
        if nsError.domain == NSPOSIXErrorDomain,
           [POSIXErrorCode.ENOTCONN, .ECONNRESET, .EPIPE].map({ Int($0.rawValue) }).contains(nsError.code) {
            return .webSocket(.dropped)
        }
        return CurlErrors.failure(for: error)
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        let outgoing: URLSessionWebSocketTask.Message = switch message {
        case .text(let text): .string(text)
        case .binary(let data): .data(data)
        }
        try await whileOpen { done in task.send(outgoing, completionHandler: done) }
    }

    /// Sends a ping. `URLSessionWebSocketTask` sends its pings empty: `payload` is not sent.
    func ping(_ payload: Data) async throws(NetworkError) {
        try await whileOpen { done in task.sendPing(pongReceiveHandler: done) }
    }

    /// Runs `operation` unless the connection is closing, and waits for its completion.
    private func whileOpen(_ operation: (@escaping @Sendable ((any Error)?) -> Void) -> Void) async throws(NetworkError) {
        if state.withLock({ $0.appClosed || $0.ended || $0.failure != nil }) { throw .webSocket(.notOpen) }
        let error: NetworkError? = await withCheckedContinuation { continuation in
            operation { [self] error in
                continuation.resume(returning: error.map { error in
                    state.withLock { $0.appClosed || $0.ended } ? .webSocket(.notOpen) : CurlErrors.failure(for: error)
                })
            }
        }
        if let error { throw error }
    }

    func close(code: UInt16, reason: String) async {
        let closing = state.withLock { state -> Bool in
            guard !state.appClosed, !state.ended else { return false }
            state.appClosed = true
            state.keepAlive?.cancel()
            return true
        }
        guard closing else { return }
        let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure
        task.cancel(with: closeCode, reason: reason.isEmpty ? nil : Data(reason.utf8.prefix(123)))
        await waitUntilEnded(atMost: Self.closeTimeout)
    }

    /// Waits for the task to complete, for `timeout` at most; then cancels it.
    private func waitUntilEnded(atMost timeout: Duration) async {
        let timer = Task { [task] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { task.cancel() }
        }
        await withCheckedContinuation { (closer: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                if state.ended { return true }
                state.closers.append(closer)
                return false
            }
            if ended { closer.resume() }
        }
        timer.cancel()
    }

    /// The session's word that the task completed: the closing handshake, a drop, or a cancel.
    func taskDidComplete() {
        let closers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended = true
            state.keepAlive?.cancel()
            defer { state.closers = [] }
            return state.closers
        }
        for closer in closers { closer.resume() }
    }

    /// Pings every `interval`; a ping still unanswered when the next is due ends the connection
    /// with ``WebSocketError/pingTimedOut``.
    private func startKeepAlive(every interval: Duration) -> Task<Void, Never> {
        Task { [weak self, task] in
            while true {
                do { try await Task.sleep(for: interval) } catch { return }
                guard let self else { return }
                let timedOut = state.withLock { state -> Bool in
                    if state.pongPending {
                        state.failure = .webSocket(.pingTimedOut)
                        return true
                    }
                    state.pongPending = true
                    return false
                }
                if timedOut {
                    task.cancel()
                    return
                }
                task.sendPing { [weak self] error in
                    if error == nil { self?.state.withLock { $0.pongPending = false } }
                }
            }
        }
    }
}
