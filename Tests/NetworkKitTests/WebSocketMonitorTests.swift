import Foundation
import FixtureServer
import Logging
@testable import NetworkKit
import NetworkKitNIO
import Testing

/// What event monitors and the kit's log hear of a WebSocket: its messages' kinds and sizes, and
/// one summary when it ends, against the fixture's WebSocket server.
@Suite("WebSocket monitors and logs")
struct WebSocketMonitorTests {
    /// Keeps what it hears, as lines.
    final class Recorder: EventMonitor {
        let events = Protected<[String]>([])
        let summaries = Protected<[WebSocketSummary]>([])

        func webSocket(_ id: RequestID, didSend message: WebSocketMessage) {
            events.withLock { $0.append("> \(message.byteCount)") }
        }

        func webSocket(_ id: RequestID, didReceive message: WebSocketMessage) {
            events.withLock { $0.append("< \(message.byteCount)") }
        }

        func webSocket(_ id: RequestID, didCloseWith summary: WebSocketSummary) {
            events.withLock { $0.append("end") }
            summaries.withLock { $0.append(summary) }
        }
    }

    static func service(_ server: WebSocketServer, monitor: Recorder, log: Protected<[(Logger.Level, String)]>) -> Service {
        var logger = Logger(label: "test") { _ in CapturingLogHandler(lines: log) }
        logger.logLevel = .debug
        var configuration = ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:\(server.port)"))
        configuration.eventMonitors = [monitor]
        configuration.logger = logger
        return Service(configuration: configuration, transport: NIOTransport())
    }

    @Test func messagesAndTheAppsCloseAreCountedAndLoggedWithoutContent() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let monitor = Recorder()
        let log = Protected<[(Logger.Level, String)]>([])
        let socket = try await Self.service(server, monitor: monitor, log: log).send(.webSocket(path: "/echo"))
        try await socket.send(.text("secret words"))
        #expect(try await WebSocketTests.next(socket) == .text("secret words"))
        try await socket.send(.binary(Data(count: 300)))
        #expect(try await WebSocketTests.next(socket) == .binary(Data(count: 300)))
        await socket.close(code: 1000)
        #expect(monitor.events.snapshot == ["> 12", "< 12", "> 300", "< 300", "end"])
        let summary = try #require(monitor.summaries.snapshot.first)
        #expect(summary.messagesSent == 2 && summary.bytesSent == 312)
        #expect(summary.messagesReceived == 2 && summary.bytesReceived == 312)
        #expect(summary.appCloseCode == 1000 && summary.error == nil)
        #expect(try await WebSocketTests.next(socket) == nil)
        #expect(monitor.summaries.snapshot.count == 1)
        let lines = log.snapshot
        #expect(!lines.contains { $0.1.contains("secret") })
        #expect(lines.contains { $0.0 == .debug && $0.1.contains("WebSocket > text, 12 B") })
        #expect(lines.contains { $0.0 == .info && $0.1.contains("WebSocket ended") && $0.1.contains("closed by the app with 1000") })
    }

    @Test func theServersCloseIsTheSummarysError() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let monitor = Recorder()
        let log = Protected<[(Logger.Level, String)]>([])
        let socket = try await Self.service(server, monitor: monitor, log: log).send(.webSocket(path: "/close?code=4000&reason=bye"))
        _ = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
        let summary = try #require(monitor.summaries.snapshot.first)
        #expect(summary.error?.description == NetworkError.webSocket(.closed(code: 4000, reason: "bye")).description)
        #expect(summary.appCloseCode == nil)
        #expect(log.snapshot.contains { $0.0 == .warning && $0.1.contains("WebSocket ended") && $0.1.contains("4000") })
    }
}
