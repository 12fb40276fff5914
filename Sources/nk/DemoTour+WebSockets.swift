import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetworkKit
import NetworkKitNIO

/// `nk demo`: a live WebSocket through the service, its token from the interceptors, that
/// reconnects and re-subscribes after its server restarts.
extension DemoTour {
    /// Puts `Bearer 1`, `Bearer 2`… on each request it adapts, as a token that is refreshed would.
    final class DemoTokens: RequestInterceptor {
        private let issued = Protected(0)

        func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
            var request = request
            let token = issued.withLock { $0 += 1; return $0 }
            request.head.headerFields[.authorization] = "Bearer \(token)"
            return request
        }
    }

    var webSocketSteps: [Step] {
        [
            ("WebSocket on NIO: a token from the interceptors, reconnected and re-subscribed after the server restarts", {
                let first = try await WebSocketServer.start()
                var configuration = service.configuration
                configuration.baseURL = URL(string: "http://127.0.0.1:\(first.port)")
                configuration.interceptors = [DemoTokens()]
                let service = Service(configuration: configuration, transport: NIOTransport())
                let options = WebSocketOptions(reconnection: StreamReconnection(delay: .milliseconds(20), maxDelay: .milliseconds(200),
                                                                                maxFailedConnects: 50))
                let socket = try await service.send(.webSocket(path: "/session", options: options) { socket in
                    try await socket.send(.text("subscribe prices"))
                })
                var messages = socket.messages.makeAsyncIterator()
                var heard = [try await messages.next()]
                // The restart: the server stops listening, its connection drops, and a new
                // server takes the same port.
                await first.stopAndWait()
                try await socket.send(.text("drop"))
                let restarted = try await WebSocketServer.start(port: first.port)
                defer { restarted.stop() }
                let dropped = ContinuousClock.now
                heard.append(try await messages.next())
                let ms = (ContinuousClock.now - dropped).milliseconds
                heard.append(try await messages.next())
                await socket.close()
                let lines = heard.map { message -> String in
                    guard case .text(let text) = message else { return "\(String(describing: message))" }
                    return "\"\(text)\""
                }
                return lines.joined(separator: ", ") + String(format: " (reconnected %.0f ms after the drop)", ms)
            }),
        ]
    }
}
