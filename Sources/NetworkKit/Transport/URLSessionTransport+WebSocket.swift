import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Opens a WebSocket on a `URLSessionWebSocketTask` of the session, with the session's
    /// proxies and trust, its `maximumMessageSize` set to ``WebSocketOptions/maxMessageBytes``
    /// and the subprotocols offered in `Sec-WebSocket-Protocol`. The platform answers pings and
    /// checks text; ``WebSocketOptions/compression`` is left to the platform, which negotiates
    /// what it supports. A refused upgrade reports its status and headers with an empty body.
    ///
    /// On Linux, FoundationNetworking's task runs on libcurl's WebSocket support, which
    /// distributions' libcurl lacks (Debian 12's 7.88, and its backported 8.14): there the upgrade
    /// fails with `ConnectionError.unsupported`, naming `NIOTransport` (the `NIO` trait), which
    /// opens WebSockets everywhere.
    public func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                               opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask {
        guard var upgrade = Self.urlRequest(request) else {
            events.transportDidComplete(failure: .transport(TransportError(.badURL, detail: "\(request.head.urlString) is not a URL")))
            return FinishedTransportTask()
        }
        upgrade.url = upgrade.url.map(Self.webSocketURL(for:))
        if !options.subprotocols.isEmpty {
            upgrade.setValue(options.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        let task = session.webSocketTask(with: upgrade)
        task.maximumMessageSize = Int(clamping: options.maxMessageBytes)
        transfers.webSockets.withLock {
            $0[task.taskIdentifier] = URLSessionWebSocketTransfer.opening(.init(events: events, options: options, opened: opened))
        }
        task.resume()
        return URLSessionTransportTask(task: task)
    }

    /// `url` with the `ws` or `wss` scheme URLSession's WebSocket task asks for.
    static func webSocketURL(for url: URL) -> URL {
        url.replacingScheme(["http": "ws", "https": "wss"])
    }

    /// The failure of an upgrade whose task failed with `error` before it opened.
    static func webSocketFailure(for error: any Error, url: URL?) -> NetworkError {
        #if canImport(FoundationNetworking)
        // FoundationNetworking's answer for a libcurl without WebSockets (its code for a scheme
        // it cannot send); the kit asked for a ws or wss URL, so the scheme is not the cause.
        if let urlError = error as? URLError, urlError.code == .unsupportedURL,
           let scheme = url?.scheme?.lowercased(), scheme == "ws" || scheme == "wss" {
            return .connection(.unsupported(
                feature: "WebSocket (this libcurl has no WebSocket support; use NIOTransport, from the NetworkKitNIO product with the NIO trait)",
                transport: transportName))
        }
        #endif
        return CurlErrors.failure(for: error)
    }
}

/// A WebSocket task of the session, as `URLSessionTransfers` holds it: its upgrade under way, or
/// its connection open.
enum URLSessionWebSocketTransfer {
    /// What an upgrade under way reports to.
    struct Opening {
        let events: any TransportEvents
        let options: WebSocketOptions
        let opened: @Sendable (any WebSocketConnection) -> Void
    }

    case opening(Opening)
    case open(URLSessionWebSocketConnection)
}

extension URLSessionTransfers {
    /// How many WebSocket tasks are opening or open.
    var webSocketCount: Int {
        webSockets.withLock { $0.count }
    }
}

extension URLSessionEventForwarder: URLSessionWebSocketDelegate {
    /// The handshake completed: the upgrade reports its `101` and hands its connection over.
    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        let id = webSocketTask.taskIdentifier
        let opened = transfers.webSockets.withLock { sockets -> (URLSessionWebSocketTransfer.Opening, URLSessionWebSocketConnection)? in
            guard case .opening(let opening)? = sockets[id] else { return nil }
            let connection = URLSessionWebSocketConnection(task: webSocketTask, subprotocol: `protocol`, options: opening.options)
            sockets[id] = .open(connection)
            return (opening, connection)
        }
        guard let (opening, connection) = opened else { return }
        let head = (webSocketTask.response as? HTTPURLResponse).flatMap(ResponseHead.init)
            ?? ResponseHead(url: webSocketTask.originalRequest?.url, status: 101)
        opening.events.transportDidReceive(head: head)
        opening.opened(connection)
        opening.events.transportDidComplete(failure: nil)
    }

    /// The closing handshake is over; the connection reads the code and reason from its task
    /// when its `receive` fails, and ends when the task completes.
    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {}

    /// A WebSocket task completed: an upgrade that never opened reports the server's answer (a
    /// status other than `101`, with an empty body) or its failure; an open connection hears
    /// that it ended.
    func webSocketDidComplete(_ task: URLSessionTask, error: (any Error)?) {
        guard let transfer = transfers.webSockets.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        switch transfer {
        case .open(let connection):
            connection.taskDidComplete()
        case .opening(let opening):
            if let http = task.response as? HTTPURLResponse, http.statusCode != 101 {
                refuse(opening, response: http)
            } else if let error {
                opening.events.transportDidComplete(failure: URLSessionTransport.webSocketFailure(for: error, url: task.originalRequest?.url))
            } else {
                opening.events.transportDidComplete(failure: .failed(.badServerResponse, detail: "the upgrade ended without a 101"))
            }
        }
    }

    /// An authentication challenge answered the upgrade of `task` with `response`.
    func webSocketRefused(_ task: URLSessionTask, response: URLResponse) {
        guard let http = response as? HTTPURLResponse else { return }
        let opening = transfers.webSockets.withLock { sockets -> URLSessionWebSocketTransfer.Opening? in
            guard case .opening(let opening)? = sockets[task.taskIdentifier] else { return nil }
            sockets[task.taskIdentifier] = nil
            return opening
        }
        if let opening { refuse(opening, response: http) }
    }

    /// Reports an upgrade the server (or, with `407`, the proxy) answered with `response`.
    private func refuse(_ opening: URLSessionWebSocketTransfer.Opening, response: HTTPURLResponse) {
        if let refusal = URLSessionTransport.proxyRefusal(response) {
            opening.events.transportDidComplete(failure: refusal)
            return
        }
        guard let head = ResponseHead(response) else {
            opening.events.transportDidComplete(
                failure: .unreadableStatus(response.statusCode))
            return
        }
        opening.events.transportDidReceive(head: head)
        opening.events.transportDidComplete(failure: nil)
    }
}
