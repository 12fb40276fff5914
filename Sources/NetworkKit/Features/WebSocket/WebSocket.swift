import Foundation

/// An open WebSocket connection, opened through a service like any request: its environment,
/// common headers, interceptors (a token on the upgrade, a `401` retried after a refresh), the
/// signer, its cookies sent and stored, its TLS trust and time limits.
///
/// ```swift
/// let socket = try await service.send(.webSocket(path: "/chat"))
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     print(message)
/// }
/// ```
///
/// ``messages`` is read by one loop at a time; while nobody reads, the connection reads no more
/// from the network than a small buffer holds, so a slow reader slows the server, not memory.
/// The connection closes with `1001` (going away) when the last reference to the socket (or to
/// its ``messages``) goes, or when its service shuts down (``Service/shutdown(gracePeriod:)``).
public final class WebSocket: Sendable, ClosableWebSocket {
    /// The upgrade's answer: its `101` status and headers (the first connection's, for a socket
    /// that reconnected since).
    public let response: ResponseHead
    fileprivate let connection: any WebSocketConnection
    /// Whether the connection is over or closing (the app closed it, or its messages ended), so
    /// the last reference going needs no close.
    private let ended = Protected(false)

    /// A socket on `connection`, opened by an upgrade that `response` answered.
    package init(connection: any WebSocketConnection, response: ResponseHead) {
        self.connection = connection
        self.response = response
    }

    deinit {
        guard !ended.snapshot else { return }
        let connection = connection
        Task { await connection.close(code: 1001, reason: "") }
    }

    /// The subprotocol the server picked among the request's, if any.
    public var subprotocol: String? { connection.subprotocol }

    /// The messages the server sends, in order. The sequence ends when the server closes with
    /// code 1000 or 1001 (or none), or when the handshake ``close(code:reason:)`` began is over
    /// (after the messages the server sent before it read the close); it throws
    /// ``NetworkError/webSocket(_:)`` for any other end (a close code, a protocol violation, a
    /// drop, an unanswered ping).
    public var messages: Messages { Messages(socket: self) }

    /// Sends `message` whole.
    /// - Throws: ``NetworkError/webSocket(_:)`` with ``WebSocketError/notOpen`` once the
    ///   connection is closing, a `NetworkError.transport` when the write fails.
    public func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await connection.send(message)
    }

    /// Sends a ping with `payload` (at most 125 bytes).
    public func ping(_ payload: Data = Data()) async throws(NetworkError) {
        guard payload.count <= 125 else { throw .invalidRequest("a ping's payload is at most 125 bytes, not \(payload.count)") }
        try await connection.ping(payload)
    }

    /// Closes the connection with `code` (1000, normal, by default) and `reason`, and returns once
    /// the server answered or the connection ended.
    public func close(code: UInt16 = 1000, reason: String = "") async {
        ended.withLock { $0 = true }
        await connection.close(code: code, reason: reason)
    }

    /// The connection's next message; marks the socket ended when the messages end.
    fileprivate func receive() async throws(NetworkError) -> WebSocketMessage? {
        do {
            guard let message = try await connection.receive() else {
                ended.withLock { $0 = true }
                return nil
            }
            return message
        } catch {
            if case .cancelled = error {} else { ended.withLock { $0 = true } }
            throw error
        }
    }

    /// The messages of a ``WebSocket``, as an `AsyncSequence`. The sequence and its iterators
    /// hold the socket, so a loop over them keeps the connection open however the socket was
    /// reached (`try await service.send(.webSocket(path: "/feed")).messages`).
    public struct Messages: AsyncSequence, Sendable {
        /// What the sequence yields.
        public typealias Element = WebSocketMessage
        /// What the sequence throws.
        public typealias Failure = NetworkError
        fileprivate let socket: WebSocket

        /// An iterator that reads the connection.
        public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

        /// Reads the next message from the connection when asked.
        public struct Iterator: AsyncIteratorProtocol {
            fileprivate let socket: WebSocket

            /// The next message, or nil once the connection closed normally.
            public mutating func next() async throws(NetworkError) -> WebSocketMessage? {
                try await socket.receive()
            }

            /// The next message, whatever the isolation.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> WebSocketMessage? {
                try await socket.receive()
            }
        }
    }
}

/// The parser of a WebSocket request: hands over the connection its upgrade opened, wrapped to
/// reconnect when the pipeline set the response up for it (the options ask for reconnection).
struct WebSocketParser: ResponseParser {
    /// What the app sends on each new connection.
    let resubscribe: ReconnectingWebSocketConnection.Resubscribe?

    /// The socket on the connection the upgrade opened.
    func parse(_ response: Response) throws -> WebSocket {
        guard let connection = response.webSocket else {
            throw ParseError(parser: "WebSocketParser", reason: "the request was not a WebSocket upgrade", kind: .custom)
        }
        let head = ResponseHead(url: response.url, status: response.status, headerFields: response.headerFields)
        let socket: WebSocket
        if let reopening = response.webSocketReopening {
            let reconnecting = ReconnectingWebSocketConnection(first: connection, reopening: reopening, resubscribe: resubscribe)
            socket = WebSocket(connection: reconnecting, response: head)
            reconnecting.attach(socket)
        } else {
            socket = WebSocket(connection: connection, response: head)
        }
        response.openWebSockets?.insert(socket)
        return socket
    }

    /// Taking the connection out of the response is instant.
    var isLightweight: Bool { true }
}

extension Request where Output == WebSocket {
    /// A WebSocket on `path`, resolved on the service's base URL as any request's path is.
    /// `resubscribe` runs on each new connection a reconnecting socket opens (see
    /// ``WebSocketOptions/reconnection``), before its messages are read: send the subscriptions
    /// the server forgot there. When it throws, the new connection closes and ends as that error
    /// (one not a ``NetworkError`` as ``NetworkError/adaptationFailed(_:)``) would.
    ///
    ///     let socket = try await service.send(.webSocket(path: "/chat", options: WebSocketOptions(subprotocols: ["chat.v2"])))
    public static func webSocket(path: String, headerFields: HTTPFields = [:],
                                 options: WebSocketOptions = WebSocketOptions(),
                                 resubscribe: (@Sendable (WebSocket) async throws -> Void)? = nil) -> Request<WebSocket> {
        webSocket(.path(path), headerFields: headerFields, options: options, resubscribe: resubscribe)
    }

    /// A WebSocket at `url`: `ws:` and `wss:` (or `http:` and `https:`, the same); `resubscribe`
    /// as ``webSocket(path:headerFields:options:resubscribe:)`` has it.
    public static func webSocket(url: URL, headerFields: HTTPFields = [:],
                                 options: WebSocketOptions = WebSocketOptions(),
                                 resubscribe: (@Sendable (WebSocket) async throws -> Void)? = nil) -> Request<WebSocket> {
        webSocket(.url(Self.httpURL(for: url)), headerFields: headerFields, options: options, resubscribe: resubscribe)
    }

    private static func webSocket(_ target: RequestTarget, headerFields: HTTPFields, options: WebSocketOptions,
                                  resubscribe: ReconnectingWebSocketConnection.Resubscribe?) -> Request<WebSocket> {
        let parser = WebSocketParser(resubscribe: resubscribe)
        let request = Request(target, headerFields: headerFields, parser: parser)
        request[option: \.kind] = .webSocket(WebSocketSetup(options: options))
        return request
    }

    /// `url` with `ws:` as `http:` and `wss:` as `https:`, the schemes an upgrade is sent on.
    static func httpURL(for url: URL) -> URL {
        url.replacingScheme(["ws": "http", "wss": "https"])
    }
}
