#if NIO
import Foundation
import NetworkKit
import NIOConcurrencyHelpers
import NIOCore

/// The messages a WebSocket connection has read and its reader has not taken yet, and how the
/// connection ended, between the channel's event loop (which adds) and the task that reads
/// (which takes). It holds at most about `byteLimit` bytes: past that the handler stops reading
/// from the network until the reader takes enough (`isFull`, `readMore`).
final class NIOWebSocketInbox: Sendable {
    private struct State {
        /// Taken from the front: a message leaves as the reader takes it, so the inbox holds only
        /// what is yet to be read, however far behind the reader is.
        var messages = CircularBuffer<WebSocketMessage>()
        var bytes = 0
        /// How the connection ended, once it has: nil for a normal end, else the error.
        var ending: NetworkError??
        var waiter: CheckedContinuation<Result<WebSocketMessage?, NetworkError>, Never>?
        var waiterID = 0
        /// True when the handler held back a read because the inbox was full.
        var readHeld = false
    }

    private let state = NIOLockedValueBox(State())
    private let byteLimit: Int
    /// Asks the handler to read again; called, off the lock, when the reader made room after a
    /// read was held back.
    private let readMore: @Sendable () -> Void

    init(byteLimit: Int, readMore: @escaping @Sendable () -> Void) {
        self.byteLimit = byteLimit
        self.readMore = readMore
    }

    // MARK: The event loop's side

    /// Adds a message, or hands it to the waiting reader.
    func append(_ message: WebSocketMessage) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Result<WebSocketMessage?, NetworkError>, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.messages.append(message)
            state.bytes += Int(message.byteCount)
            return nil
        }
        waiter?.resume(returning: .success(message))
    }

    /// The connection ended: nil normally, else with `error`. The reader gets the messages kept
    /// before it, then the end.
    func finish(_ error: NetworkError?) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Result<WebSocketMessage?, NetworkError>, Never>? in
            guard state.ending == nil else { return nil }
            state.ending = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: error.map { .failure($0) } ?? .success(nil))
    }

    /// Whether the next read from the network should wait for the reader; true records that a
    /// read was held back, so the reader asks for it once it made room.
    func holdsRead() -> Bool {
        state.withLockedValue { state in
            guard state.bytes >= byteLimit else { return false }
            state.readHeld = true
            return true
        }
    }

    /// How many messages it holds now (for the tests).
    var heldMessages: Int { state.withLockedValue { $0.messages.count } }

    // MARK: The reader's side

    /// The next message, waiting for one; nil after a normal end.
    /// - Throws: the connection's error after its messages; `NetworkError.cancelled` when the
    ///   awaiting task is cancelled (the connection stays open, and a later call reads on).
    func next() async throws(NetworkError) -> WebSocketMessage? {
        let id = state.withLockedValue { state -> Int in
            state.waiterID += 1
            return state.waiterID
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (ready, wantsMore) = state.withLockedValue { state in
                    Self.take(from: &state, byteLimit: byteLimit, waiter: continuation)
                }
                if wantsMore { readMore() }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Result<WebSocketMessage?, NetworkError>, Never>? in
                guard state.waiterID == id else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: .failure(.cancelled))
        }
        return try result.get()
    }

    /// Under the lock: the first message kept (and whether the handler should read again), else
    /// the end, else a cancellation; else `waiter` waits for what comes next.
    private static func take(from state: inout State, byteLimit: Int,
                             waiter: CheckedContinuation<Result<WebSocketMessage?, NetworkError>, Never>)
        -> (Result<WebSocketMessage?, NetworkError>?, readMore: Bool) {
        if let message = state.messages.popFirst() {
            state.bytes -= Int(message.byteCount)
            let readMore = state.readHeld && state.bytes < byteLimit / 2
            if readMore { state.readHeld = false }
            return (.success(message), readMore)
        }
        if let ending = state.ending { return (ending.map { .failure($0) } ?? .success(nil), false) }
        if Task.isCancelled { return (.failure(.cancelled), false) }
        state.waiter = waiter
        return (nil, false)
    }
}

#endif
