import Foundation
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// WebSocket conversations a test scripts on the stub transport: the app's side through a service
/// as on a real transport, the server's side played by the script.
@Suite("StubTransport WebSockets", .timeLimit(.minutes(1)))
struct StubWebSocketTests {
    static func service(_ stub: StubTransport, interceptors: [any RequestInterceptor] = []) -> Service {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.interceptors = interceptors
        return Service(configuration: configuration, transport: stub)
    }

    @Test func aScriptedEchoSeesTheAppsMessagesPingsAndClose() async throws {
        let stub = StubTransport()
        let (closes, closed) = AsyncStream<String>.makeStream()
        stub.answer(.get, .path("/chat"), with: .webSocket(subprotocol: "chat") { peer in
            try peer.send(.text("welcome"))
            while let message = try await peer.receive() { try peer.send(message) }
            closed.yield(peer.appClose.map { "\($0.code) \($0.reason)" } ?? "none")
            #expect(peer.pings == [Data("p".utf8)])
        })
        let socket = try await Self.service(stub).send(.webSocket(path: "/chat", options: WebSocketOptions(subprotocols: ["chat"])))
        #expect(socket.response.status.code == 101)
        #expect(socket.subprotocol == "chat")
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("welcome"))
        try await socket.ping(Data("p".utf8))
        try await socket.send(.binary(Data([1, 2, 3])))
        #expect(try await messages.next() == .binary(Data([1, 2, 3])))
        await socket.close(code: 4000, reason: "bye")
        #expect(try await messages.next() == nil)
        await #expect(throws: NetworkError.self) { try await socket.send(.text("late")) }
        #expect(stub.requests.map(\.description) == ["GET https://api.example.com/chat"])
        var seen = closes.makeAsyncIterator()
        #expect(await seen.next() == "4000 bye")
    }

    @Test func aRefusedUpgradeIsRetriedByTheInterceptorsAsOnAServer() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/token"), with: [StubResponse(status: 401), .webSocket { peer in
            try peer.send(.text(peer.request.header(.authorization) ?? "none"))
        }])
        let socket = try await Self.service(stub, interceptors: [WebSocketTests.TokenInterceptor()]).send(.webSocket(path: "/token"))
        #expect(try await WebSocketTests.next(socket) == .text("Bearer fresh"))
        #expect(try await WebSocketTests.next(socket) == nil)   // the script returned: a normal close
    }

    @Test("how the script ends the app's messages", arguments: [
        ("close 4001", WebSocketError?.some(.closed(code: 4001, reason: "kicked"))),
        ("drop", .dropped),
        ("throw", .closed(code: 1011, reason: "CancellationError()")),
        ("close 1001", nil),
    ])
    func scriptEnds(_ end: String, expected: WebSocketError?) async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/end"), with: .webSocket { peer in
            try peer.send(.text("first"))
            switch end {
            case "close 4001": peer.close(code: 4001, reason: "kicked")
            case "drop": peer.drop()
            case "throw": throw CancellationError()
            default: peer.close(code: 1001)
            }
        })
        let socket = try await Self.service(stub).send(.webSocket(path: "/end"))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("first"))
        do {
            #expect(try await messages.next() == nil)
            #expect(expected == nil)
        } catch let .webSocket(error) {
            #expect(error == expected)
        }
    }

    @Test func aMessageOverTheAppsLimitClosesWith1009() async throws {
        let stub = StubTransport()
        let (closes, appClose) = AsyncStream<UInt16?>.makeStream()
        stub.answer(.get, .path("/big"), with: .webSocket { peer in
            try peer.send(.binary(Data(count: 2_000)))
            while try await peer.receive() != nil {}
            appClose.yield(peer.appClose?.code)
        })
        let socket = try await Self.service(stub).send(.webSocket(path: "/big", options: WebSocketOptions(maxMessageBytes: 1_000)))
        let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
        #expect(error == .protocolViolation(code: 1009, reason: "a message of 2000 bytes is over the limit of 1000"))
        var seen = closes.makeAsyncIterator()
        #expect(await seen.next() == 1009)
    }

    @Test func aReconnectingSocketMeetsTheNextScriptedConnection() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/feed"), with: [
            .webSocket { peer in try peer.send(.text("one")); peer.drop() },
            .webSocket { peer in
                let subscription = try await peer.receive()
                try peer.send(subscription ?? .text("none"))
            },
        ])
        let options = WebSocketOptions(reconnection: StreamReconnection(delay: .zero))
        let socket = try await Self.service(stub).send(.webSocket(path: "/feed", options: options) { socket in
            try await socket.send(.text("subscribe"))
        })
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("one"))
        #expect(try await messages.next() == .text("subscribe"))
        await socket.close()
        #expect(stub.requests.count == 2)
    }

    @Test func theUpgradeFailsAsAClientsChecksWould() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/socket"), with: .webSocket(subprotocol: "other") { _ in })
        let service = Self.service(stub)
        await #expect(throws: NetworkError.self) { _ = try await service.send(.webSocket(path: "/socket")) }
        await #expect(throws: NetworkError.self) { _ = try await service.send(Request(path: "/socket")) }
    }
}

extension StubWebSocketTests {
    /// The app's close during a reconnection's wait ends the messages at once, with no new upgrade.
    @Test func closingDuringTheWaitEndsTheMessagesAtOnce() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/feed"), with: .webSocket { peer in try peer.send(.text("one")); peer.drop() })
        let options = WebSocketOptions(reconnection: StreamReconnection(delay: .seconds(3_600), maxDelay: .seconds(3_600)))
        let socket = try await Self.service(stub).send(.webSocket(path: "/feed", options: options))
        let (heard, first) = AsyncStream<WebSocketMessage?>.makeStream()
        let reader = Task {
            var messages = socket.messages.makeAsyncIterator()
            first.yield(try await messages.next())
            return try await messages.next()   // meets the drop, then waits an hour to reconnect
        }
        var firsts = heard.makeAsyncIterator()
        #expect(await firsts.next() == .text("one"))
        await socket.close()
        #expect(try await reader.value == nil)
        #expect(stub.requests.count == 1)
    }
}

extension StubWebSocketTests {
    /// The waits between connections run on the service's clock, as its retry delays do.
    @Test func theWaitsRunOnTheServicesClock() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/feed"), with: [
            .webSocket { peer in try peer.send(.text("one")); peer.drop() },
            .webSocket { peer in try peer.send(.text("two")) },
        ])
        let clock = InstantClock()
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.clock = clock
        let service = Service(configuration: configuration, transport: stub)
        let options = WebSocketOptions(reconnection: StreamReconnection(delay: .seconds(30), maxDelay: .seconds(30)))
        let socket = try await service.send(.webSocket(path: "/feed", options: options))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("one"))
        #expect(try await messages.next() == .text("two"))
        #expect(clock.slept == [.seconds(30)])
        await socket.close()
    }
}
