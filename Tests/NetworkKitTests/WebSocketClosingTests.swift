import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import NetworkKitTesting
import Testing

/// What the app reads after its own close: every message the server sent before it answered the
/// close (RFC 6455, 5.5.1 and 7.1.1), on each transport that runs WebSockets here, with and
/// without reconnection.
@Suite("WebSockets: messages until the closing handshake ends")
struct WebSocketClosingTests {
    /// Where the socket is opened, and whether it reconnects.
    enum Road: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case nio = "NIO"
        case nioReconnecting = "NIO, reconnecting"
        case stub = "StubTransport"
        case stubReconnecting = "StubTransport, reconnecting"

        var testDescription: String { rawValue }

        var options: WebSocketOptions {
            switch self {
            case .nio, .stub: WebSocketOptions()
            case .nioReconnecting, .stubReconnecting: WebSocketOptions(reconnection: StreamReconnection(delay: .zero))
            }
        }
    }

    /// Sends a message, closes at once, then reads: the echo the server sent before it answered the
    /// close comes first, then the end. Many times over, each on a new connection.
    @Test("send, close at once, and read the echo", arguments: Road.allCases)
    func theEchoSentBeforeTheCloseArrives(road: Road) async throws {
        let service: Service
        var stop: @Sendable () -> Void = {}
        switch road {
        case .nio, .nioReconnecting:
            let server = try await WebSocketServer.start()
            stop = { server.stop() }
            service = WebSocketTests.service(server)
        case .stub, .stubReconnecting:
            let stub = StubTransport()
            stub.answer(.get, .path("/echo"), with: .webSocket { peer in
                while let message = try await peer.receive() { try peer.send(message) }
            })
            service = StubWebSocketTests.service(stub)
        }
        defer { stop() }
        for round in 0..<50 {
            let socket = try await service.send(.webSocket(path: "/echo", options: road.options))
            try await socket.send(.text("round \(round)"))
            await socket.close()
            var received: [WebSocketMessage] = []
            for try await message in socket.messages { received.append(message) }
            #expect(received == [.text("round \(round)")], "round \(round)")
        }
    }
}
