import Foundation

/// A WebSocket connection whose messages and end the service's event monitors hear, under the
/// id of the request whose upgrade opened it. The end is reported once: when reading meets it,
/// or when the app's close returns.
final class MonitoredWebSocketConnection: WebSocketConnection {
    private let connection: any WebSocketConnection
    private let id: RequestID
    private let monitors: [any EventMonitor]
    private let opened = ContinuousClock.now
    /// What crossed so far; nil once the end was reported.
    private let summary = Protected<WebSocketSummary?>(WebSocketSummary())

    init(_ connection: any WebSocketConnection, id: RequestID, monitors: [any EventMonitor]) {
        self.connection = connection
        self.id = id
        self.monitors = monitors
    }

    var subprotocol: String? { connection.subprotocol }

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        do {
            guard let message = try await connection.receive() else {
                report(error: nil)
                return nil
            }
            summary.withLock { summary in
                summary?.messagesReceived += 1
                summary?.bytesReceived += message.byteCount
            }
            for monitor in monitors { monitor.webSocket(id, didReceive: message) }
            return message
        } catch .cancelled {
            throw .cancelled
        } catch {
            report(error: error)
            throw error
        }
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        try await connection.send(message)
        summary.withLock { summary in
            summary?.messagesSent += 1
            summary?.bytesSent += message.byteCount
        }
        for monitor in monitors { monitor.webSocket(id, didSend: message) }
    }

    func ping(_ payload: Data) async throws(NetworkError) {
        try await connection.ping(payload)
    }

    func close(code: UInt16, reason: String) async {
        summary.withLock { summary in
            if summary?.appCloseCode == nil { summary?.appCloseCode = code }
        }
        await connection.close(code: code, reason: reason)
        report(error: nil)
    }

    /// Tells the monitors how the connection ended, the first time only.
    private func report(error: NetworkError?) {
        let duration = opened.duration(to: .now)
        let ended = summary.withLock { summary -> WebSocketSummary? in
            guard var ended = summary else { return nil }
            summary = nil
            ended.error = error
            ended.duration = duration
            return ended
        }
        guard let ended else { return }
        for monitor in monitors { monitor.webSocket(id, didCloseWith: ended) }
    }
}
