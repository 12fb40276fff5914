import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sockets that reconnect, against the fixture's `/session` path (which numbers its connections,
/// and drops or restarts on request) and a fixture server stopped and started again on its port.
@Suite("WebSocket reconnection")
struct WebSocketReconnectionTests {
    /// Adapts each upgrade with a new token, `Bearer 1`, `Bearer 2`…
    final class CountingTokens: RequestInterceptor, @unchecked Sendable {
        // `count` is guarded by `lock`.
        private let lock = NSLock()
        private var count = 0

        var adapted: Int { lock.withLock { count } }

        func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
            var request = request
            let token = lock.withLock { count += 1; return count }
            request.head.headerFields[HTTPField.Name("Authorization")!] = "Bearer \(token)"
            return request
        }
    }

    static func options(delay: Duration = .milliseconds(5), maxFailedConnects: Int = 5) -> WebSocketOptions {
        WebSocketOptions(reconnection: StreamReconnection(delay: delay, maxDelay: .milliseconds(100),
                                                          maxFailedConnects: maxFailedConnects))
    }

    @Test func aDropOrARestartOpensANewConnectionWithAFreshTokenAndTheHook() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let tokens = CountingTokens()
        let service = WebSocketTests.service(server, interceptors: [tokens])
        let socket = try await service.send(.webSocket(path: "/session", options: Self.options()) { socket in
            try await socket.send(.text("subscribed"))
        })
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("connection 1 (Bearer 1)"))
        try await socket.send(.text("drop"))
        #expect(try await messages.next() == .text("connection 2 (Bearer 2)"))
        #expect(try await messages.next() == .text("subscribed"))
        try await socket.send(.text("restart"))
        #expect(try await messages.next() == .text("connection 3 (Bearer 3)"))
        #expect(try await messages.next() == .text("subscribed"))
        #expect(tokens.adapted == 3)
        await socket.close()
        #expect(try await messages.next() == nil)
        #expect(tokens.adapted == 3)
    }

    @Test func aServerThatStaysDownEndsTheSocketWithTheLastFailure() async throws {
        let server = try await WebSocketServer.start()
        let service = WebSocketTests.service(server)
        let socket = try await service.send(.webSocket(path: "/session", options: Self.options(delay: .milliseconds(1), maxFailedConnects: 3)))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("connection 1"))
        await server.stopAndWait()
        try await socket.send(.text("drop"))
        do {
            let message = try await messages.next()
            Issue.record("expected the socket to fail once the server stayed down, got \(String(describing: message))")
        } catch {
            guard case .transport = error else {
                Issue.record("expected a transport failure (the refused upgrade), got \(error)")
                return
            }
        }
    }

    @Test func aServerRestartedOnItsPortIsFoundAgain() async throws {
        let server = try await WebSocketServer.start()
        let service = WebSocketTests.service(server)
        let socket = try await service.send(.webSocket(path: "/session", options: Self.options(delay: .milliseconds(20), maxFailedConnects: 100)))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("connection 1"))
        await server.stopAndWait()
        try await socket.send(.text("drop"))
        let restarted = try await WebSocketServer.start(port: server.port)
        defer { restarted.stop() }
        // The restarted server counts its connections from 1 again.
        #expect(try await messages.next() == .text("connection 1"))
        await socket.close()
    }

    @Test func theServersNormalCloseReconnectsButTheAppsDoesNot() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let service = WebSocketTests.service(server)
        let socket = try await service.send(.webSocket(path: "/close?code=1000", options: Self.options(maxFailedConnects: 2)))
        // Each connection closes before its first message: two in a row end the socket, normally.
        #expect(try await WebSocketTests.next(socket) == nil)
        let echo = try await service.send(.webSocket(path: "/echo", options: Self.options()))
        await echo.close()
        #expect(try await WebSocketTests.next(echo) == nil)
    }
}
