import Foundation

/// One WebSocket message, whole: its fragments reassembled, its text checked as UTF-8.
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)
}

/// How a WebSocket connection ended other than by a normal close, as
/// ``NetworkError/webSocket(_:)`` carries it.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server closed the connection with a code other than 1000 (normal) or 1001 (going
    /// away), and this reason.
    case closed(code: UInt16, reason: String)
    /// The server broke the protocol (a masked frame, text that is not UTF-8, a message over the
    /// limit…): the client closed the connection with `code` (1002, 1007, 1009) for `reason`.
    case protocolViolation(code: UInt16, reason: String)
    /// The connection ended without a closing handshake (1006): the server or the network
    /// dropped it.
    case dropped
    /// The server did not answer the keep-alive ping within the ping interval.
    case pingTimedOut
    /// A message or ping was sent after the connection began to close.
    case notOpen

    /// The failure in words.
    public var description: String {
        switch self {
        case .closed(let code, let reason):
            return "the server closed the WebSocket with code \(code)" + (reason.isEmpty ? "" : ": \(reason)")
        case .protocolViolation(let code, let reason):
            return "the server broke the WebSocket protocol (\(reason)); closed with code \(code)"
        case .dropped:
            return "the WebSocket connection ended without a closing handshake"
        case .pingTimedOut:
            return "the server did not answer the WebSocket's keep-alive ping in time"
        case .notOpen:
            return "the WebSocket is closing or closed: nothing more can be sent"
        }
    }
}

/// What crossed one WebSocket connection, and how it ended, as event monitors hear it when it
/// ends (`EventMonitor.webSocket(_:didCloseWith:)`).
public struct WebSocketSummary: Sendable, Equatable {
    /// The messages the app sent.
    public var messagesSent = 0
    /// The bytes of the messages the app sent (text as UTF-8).
    public var bytesSent: Int64 = 0
    /// The messages the app read.
    public var messagesReceived = 0
    /// The bytes of the messages the app read.
    public var bytesReceived: Int64 = 0
    /// The code of the app's close, when the app closed the connection.
    public var appCloseCode: UInt16?
    /// How the connection failed (a close code, a violation, a drop…); nil for a normal close.
    public var error: NetworkError?
    /// From the upgrade's `101` to the end.
    public var duration: Duration = .zero

    /// An empty summary.
    public init() {}

    public static func == (lhs: WebSocketSummary, rhs: WebSocketSummary) -> Bool {
        lhs.messagesSent == rhs.messagesSent && lhs.bytesSent == rhs.bytesSent
            && lhs.messagesReceived == rhs.messagesReceived && lhs.bytesReceived == rhs.bytesReceived
            && lhs.appCloseCode == rhs.appCloseCode && lhs.error?.description == rhs.error?.description
            && lhs.duration == rhs.duration
    }
}

extension WebSocketMessage {
    /// The message's size: text as UTF-8 bytes, binary as is.
    public var byteCount: Int64 {
        switch self {
        case .text(let text): Int64(text.utf8.count)
        case .binary(let data): Int64(data.count)
        }
    }
}

/// What a WebSocket connection is opened with, besides its request's URL and headers.
public struct WebSocketOptions: Sendable, Equatable {
    /// The subprotocols to offer (`Sec-WebSocket-Protocol`), most wanted first; the server picks
    /// one or none.
    public var subprotocols: [String]
    /// The most bytes one message may have; a larger one closes the connection with code 1009
    /// and fails with ``WebSocketError/protocolViolation(code:reason:)``. 16 MiB by default.
    public var maxMessageBytes: Int64
    /// How often to ping the server when set; a ping unanswered when the next is due ends the
    /// connection with ``WebSocketError/pingTimedOut``. Off (nil) by default.
    public var pingInterval: Duration?
    /// Whether the socket opens a new connection when the server ends one, and how long it waits
    /// between tries (see ``StreamReconnection``; the server's `retry:` does not apply). Off
    /// (``StreamReconnection/never``) by default.
    ///
    /// When on, a connection that dropped, missed its keep-alive ping, or that the server closed
    /// (with any code but those that blame the client: 1002, 1003, 1007, 1008, 1009, 1010) is
    /// followed by a new upgrade through the service, the interceptors adapting it again (a fresh
    /// token, a new signature); the wait grows with each connection in a row that failed to open
    /// or ended before its first message, and after ``StreamReconnection/maxFailedConnects`` of
    /// them ``WebSocket/messages`` throws the last error. The app's own close, a protocol
    /// violation and an upgrade the server refused (a status) end the socket for good.
    public var reconnection: StreamReconnection
    /// Whether to offer `permessage-deflate` (RFC 7692): when the server accepts it, messages
    /// travel compressed both ways, and a message is held to ``maxMessageBytes`` once inflated
    /// (a larger one closes with 1009, however small it was on the wire). Off by default: each
    /// connection that uses it keeps a compressor and a decompressor (about 300 KiB).
    public var compression: Bool

    /// Options with these settings.
    public init(subprotocols: [String] = [], maxMessageBytes: Int64 = 16 << 20, pingInterval: Duration? = nil,
                reconnection: StreamReconnection = .never, compression: Bool = false) {
        self.subprotocols = subprotocols
        self.maxMessageBytes = maxMessageBytes
        self.pingInterval = pingInterval
        self.reconnection = reconnection
        self.compression = compression
    }
}

/// One open WebSocket connection as a transport hands it over (the seam under ``WebSocket``).
/// Messages are read in the task that asks for them, one reader at a time: while nobody asks,
/// the connection reads nothing more from the network.
public protocol WebSocketConnection: Sendable {
    /// The subprotocol the server picked, if any.
    var subprotocol: String? { get }
    /// The next message; nil once the connection closed with a closing handshake whose code is
    /// 1000, 1001 or none, or that the client began.
    /// - Throws: ``NetworkError/webSocket(_:)`` for any other end, ``NetworkError/cancelled``
    ///   when the awaiting task is cancelled (the connection stays open).
    func receive() async throws(NetworkError) -> WebSocketMessage?
    /// Sends `message` whole.
    /// - Throws: ``NetworkError/webSocket(_:)`` (``WebSocketError/notOpen``) once the connection
    ///   is closing, a transport failure when the write fails.
    func send(_ message: WebSocketMessage) async throws(NetworkError)
    /// Sends a ping with `payload` (at most 125 bytes); the connection reads the pong as it reads
    /// messages.
    func ping(_ payload: Data) async throws(NetworkError)
    /// Begins the closing handshake with `code` and `reason` (at most 123 bytes of UTF-8) and
    /// returns once it is over or, after a few seconds without the server's close, the connection
    /// is ended; a no-op when the connection is already closing.
    func close(code: UInt16, reason: String) async
}

/// An open WebSocket a service handed out (``WebSocket``), as its shutdown sees it.
package protocol ClosableWebSocket: AnyObject, Sendable {
    /// Closes the connection with `code` and `reason`; returns once the closing handshake ended.
    func close(code: UInt16, reason: String) async
}

/// The WebSockets a service handed out, so that its shutdown can close them (`1001`, going away).
/// It holds each weakly: a socket the app let go closes itself, and its entry goes with it.
package final class OpenWebSockets: Sendable {
    /// A socket held weakly. `@unchecked Sendable`: `socket` is written once, at creation, and
    /// only read after; the weak reference itself is thread-safe.
    private final class Entry: @unchecked Sendable {
        weak var socket: (any ClosableWebSocket)?
        init(_ socket: any ClosableWebSocket) { self.socket = socket }
    }

    private let entries = Protected<[Entry]>([])

    package init() {}

    /// Keeps `socket` for the shutdown, and forgets the sockets released since the last call.
    package func insert(_ socket: any ClosableWebSocket) {
        entries.withLock { entries in
            entries.removeAll { $0.socket == nil }
            entries.append(Entry(socket))
        }
    }

    /// Closes every socket still held with `code` and `reason`, at once, and returns when every
    /// closing handshake ended; forgets them.
    package func closeAll(code: UInt16, reason: String) async {
        let sockets = entries.withLock { entries in
            defer { entries = [] }
            return entries.compactMap(\.socket)
        }
        await withTaskGroup(of: Void.self) { group in
            for socket in sockets { group.addTask { await socket.close(code: code, reason: reason) } }
        }
    }
}
