import Foundation
import NetworkKit

// MARK: - WebSockets

func chat(service: Service) async throws {
    let socket = try await service.send(.webSocket(path: "/chat"))
    try await socket.send(.text("hello"))
    for try await message in socket.messages {
        switch message {
        case .text(let text): print(text)
        case .binary(let data): print(data.count, "bytes")
        }
    }
}

func howItEnded(socket: WebSocket) async {
    do {
        for try await message in socket.messages { print(message) }
    } catch .webSocket(.closed(let code, let reason)) {
        print("the server closed with \(code): \(reason)")
    } catch {
        print("the connection failed: \(error)")
    }
}

func chatWithOptions(service: Service) async throws -> WebSocket {
    let options = WebSocketOptions(subprotocols: ["chat.v2"], maxMessageBytes: 1 << 20, pingInterval: .seconds(20),
                                   compression: true)
    let socket = try await service.send(.webSocket(path: "/chat", headerFields: [.userAgent: "chat-ios/2.1"], options: options))
    return socket
}

func reconnectingPrices(service: Service) async throws {
    let options = WebSocketOptions(reconnection: StreamReconnection(delay: .seconds(1), maxDelay: .seconds(30)))
    let prices = try await service.send(.webSocket(path: "/prices", options: options) { socket in
        try await socket.send(.text(#"{"subscribe": ["EURUSD"]}"#))
    })
    for try await message in prices.messages { print(message) }
}
