import Foundation
import NetworkKit

/// The server's side of a WebSocket that a ``StubTransport`` opened: a test's script plays the
/// server through it, as ``StubResponse/webSocket(subprotocol:headerFields:script:)`` says.
///
///     stub.answer(.get, .path("/chat"), with: .webSocket { peer in
///         try peer.send(.text("welcome"))
///         while let message = try await peer.receive() {   // what the app sends, until it closes
///             try peer.send(message)
///         }
///     })
///
/// What the app sees follows RFC 6455 as the NIO transport plays it: a message over the app's
/// `WebSocketOptions.maxMessageBytes` closes the connection with 1009, a close with 1000, 1001
/// or no code ends its messages normally, any other code throws `WebSocketError.closed`, and
/// ``drop()`` throws `WebSocketError.dropped`.
public final class StubWebSocketPeer: Sendable {
    /// The upgrade request as the app sent it (its token, cookies, subprotocols).
    public let request: RecordedRequest
    let link: StubWebSocketLink

    init(request: RecordedRequest, link: StubWebSocketLink) {
        self.request = request
        self.link = link
    }

    /// Sends `message` to the app.
    /// - Throws: ``StubWebSocketPeer/Closed`` once either side closed the connection or it dropped.
    public func send(_ message: WebSocketMessage) throws(Closed) {
        guard link.toApp.put(message) else { throw Closed() }
    }

    /// The next message the app sent; nil once the app closed the connection (its code and
    /// reason are then in ``appClose``) or this side ended it.
    ///
    /// Reading the app's close answers it, as a server's close frame would: until then, what
    /// ``send(_:)`` sends still reaches the app, whose messages end after it (RFC 6455, 5.5.1).
    /// - Throws: `CancellationError` when the script's task is cancelled.
    public func receive() async throws -> WebSocketMessage? {
        switch try await link.toPeer.take() {
        case .item(let message):
            return message
        case .end(let end):
            if end.byApp { link.toApp.end(.closedByApp) }
            return nil
        }
    }

    /// Closes the connection with `code` and `reason`, after the messages sent before.
    public func close(code: UInt16? = 1000, reason: String = "") {
        link.toApp.end(.closed(code: code, reason: reason))
        link.toPeer.end(.init(code: code, reason: reason, byApp: false))
    }

    /// Ends the connection without a closing handshake, as a server that went away does.
    public func drop() {
        link.toApp.end(.dropped)
        link.toPeer.end(.init(code: nil, reason: "", byApp: false))
    }

    /// The code and reason of the app's close, once it closed.
    public var appClose: (code: UInt16, reason: String)? {
        guard let end = link.toPeer.ending, end.byApp else { return nil }
        return (end.code ?? 1005, end.reason)
    }

    /// The payloads of the pings the app sent, in order.
    public var pings: [Data] { link.pings.snapshot }

    /// The error of a send after the connection ended.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        /// The failure in words.
        public var description: String { "the stub WebSocket is closed: the peer cannot send" }
    }
}

/// What a script plays: the server's side of one connection.
typealias StubWebSocketScript = @Sendable (StubWebSocketPeer) async throws -> Void

/// The two directions of one stub WebSocket connection.
final class StubWebSocketLink: Sendable {
    /// How the app's side ends.
    enum AppEnd: Sendable {
        case closed(code: UInt16?, reason: String)
        case dropped
        case violation(code: UInt16, reason: String)
        /// The peer read the app's close (its answer): the app's messages end normally.
        case closedByApp
    }

    /// How the peer's side ends: the close code and reason, and who closed.
    struct PeerEnd: Sendable {
        var code: UInt16?
        var reason: String
        var byApp: Bool
    }

    let toApp = StubMailbox<WebSocketMessage, AppEnd>()
    let toPeer = StubMailbox<WebSocketMessage, PeerEnd>()
    let pings = Protected<[Data]>([])
}

/// The app's side of a stub WebSocket connection.
struct StubWebSocketConnection: WebSocketConnection {
    let link: StubWebSocketLink
    let subprotocol: String?
    let maxMessageBytes: Int64

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        let next: StubMailbox<WebSocketMessage, StubWebSocketLink.AppEnd>.Taken
        do {
            next = try await link.toApp.take()
        } catch {
            throw .cancelled
        }
        switch next {
        case .item(let message):
            let size = message.byteCount
            guard size <= maxMessageBytes else {
                let reason = "a message of \(size) bytes is over the limit of \(maxMessageBytes)"
                link.toApp.end(.violation(code: 1009, reason: reason), discardingItems: true)
                link.toPeer.end(.init(code: 1009, reason: reason, byApp: true))
                throw .webSocket(.protocolViolation(code: 1009, reason: reason))
            }
            return message
        case .end(.closed(let code, let reason)):
            if let code, code != 1000, code != 1001 { throw .webSocket(.closed(code: code, reason: reason)) }
            return nil
        case .end(.closedByApp):
            return nil
        case .end(.dropped):
            throw .webSocket(.dropped)
        case .end(.violation(let code, let reason)):
            throw .webSocket(.protocolViolation(code: code, reason: reason))
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        guard link.toApp.ending == nil, link.toPeer.put(message) else { throw .webSocket(.notOpen) }
    }

    func ping(_ payload: Data) async throws(NetworkError) {
        guard link.toApp.ending == nil, link.toPeer.ending == nil else { throw .webSocket(.notOpen) }
        link.pings.withLock { $0.append(payload) }
    }

    /// Sends the app's close: the peer reads it after the app's earlier messages, and what the
    /// peer sends until it read it (or its script ended) still reaches the app.
    func close(code: UInt16, reason: String) async {
        guard link.toPeer.ending == nil else { return }
        link.toPeer.end(.init(code: code, reason: reason, byApp: true))
    }
}

/// Items handed from one task to another, one reader at a time, then an end: what a stub
/// WebSocket's direction carries.
final class StubMailbox<Item: Sendable, End: Sendable>: Sendable {
    /// What `take` returns: an item, or the end once the items before it were taken.
    enum Taken: Sendable {
        case item(Item)
        case end(End)
    }

    private struct State {
        var items: [Item] = []
        var ending: End?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Protected(State())

    /// Adds `item`; false (and nothing added) once the mailbox has ended.
    func put(_ item: Item) -> Bool {
        let (added, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.ending == nil else { return (false, nil) }
            state.items.append(item)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return added
    }

    /// Ends the mailbox with `end` (the first end stays), after its items or, when
    /// `discardingItems`, instead of them.
    func end(_ end: End, discardingItems: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.ending == nil else { return nil }
            state.ending = end
            if discardingItems { state.items.removeAll() }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// How the mailbox ended, once it did.
    var ending: End? { state.withLock { $0.ending } }

    /// The next item, or the end once every item was taken.
    /// - Throws: `CancellationError` when the awaiting task is cancelled (nothing is taken).
    func take() async throws -> Taken {
        while true {
            try Task.checkCancellation()
            if let taken = state.withLock({ state -> Taken? in
                if !state.items.isEmpty { return .item(state.items.removeFirst()) }
                return state.ending.map { .end($0) }
            }) {
                return taken
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool in
                        if !state.items.isEmpty || state.ending != nil || Task.isCancelled { return true }
                        state.waiter?.resume()
                        state.waiter = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    defer { state.waiter = nil }
                    return state.waiter
                }
                waiter?.resume()
            }
        }
    }
}
