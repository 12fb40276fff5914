import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WebSockets opened through a service on the NIO transport, against a real WebSocket server on
/// 127.0.0.1 (`WebSocketServer`, on SwiftNIO's server upgrader).
@Suite("WebSockets")
struct WebSocketTests {
    /// The token interceptor of the tests: `Bearer stale` first, `Bearer fresh` once a `401` made
    /// it refresh, and one retry for that `401`.
    final class TokenInterceptor: RequestInterceptor, @unchecked Sendable {
        // `refreshed` is guarded by `lock`.
        private let lock = NSLock()
        private var refreshed = false

        func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
            var request = request
            let token = lock.withLock { refreshed } ? "fresh" : "stale"
            request.head.headerFields[HTTPField.Name("Authorization")!] = "Bearer \(token)"
            return request
        }

        func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
            guard case .httpStatus(401, _, _) = error, context.attempt == 1 else { return .doNotRetry }
            lock.withLock { refreshed = true }
            return .retry(after: .zero)
        }
    }

    static func service(_ server: WebSocketServer, interceptors: [any RequestInterceptor] = []) -> Service {
        var configuration = ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:\(server.port)"))
        configuration.interceptors = interceptors
        return Service(configuration: configuration, transport: NIOTransport())
    }

    /// Reads the next message (nil at a normal end).
    static func next(_ socket: WebSocket) async throws -> WebSocketMessage? {
        var iterator = socket.messages.makeAsyncIterator()
        return try await iterator.next()
    }

    /// The WebSocket error `body` throws, if it throws one (anything else is recorded).
    static func webSocketError(_ body: () async throws -> Void) async -> WebSocketError? {
        do {
            try await body()
        } catch let NetworkError.webSocket(error) {
            return error
        } catch {
            Issue.record("expected a WebSocket error, got \(error)")
        }
        return nil
    }

    @Test func echoesTextAndBinaryAndPicksTheSubprotocol() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let service = Self.service(server)
        let socket = try await service.send(.webSocket(path: "/echo", options: WebSocketOptions(subprotocols: ["superchat", "chat"])))
        #expect(socket.response.status.code == 101)
        #expect(socket.subprotocol == "chat")
        try await socket.send(.text("héllo"))
        #expect(try await Self.next(socket) == .text("héllo"))
        let bytes = Data((0..<1_000).map { UInt8($0 % 256) })
        try await socket.send(.binary(bytes))
        #expect(try await Self.next(socket) == .binary(bytes))
        try await socket.ping(Data("p".utf8))
        try await socket.send(.text("after the ping"))
        #expect(try await Self.next(socket) == .text("after the ping"))
        await socket.close()
        #expect(try await Self.next(socket) == nil)
        #expect(await Self.webSocketError { try await socket.send(.text("late")) } == .notOpen)
    }

    /// A loop over the messages of a socket the caller never named keeps the connection open.
    @Test func theMessagesHoldTheirSocket() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        var fragments = try await Self.service(server).send(.webSocket(path: "/fragments")).messages.makeAsyncIterator()
        #expect(try await fragments.next() == .text("hello"))
    }

    @Test func fragmentsAreReassembledAroundAPing() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: "/fragments"))
        #expect(try await Self.next(socket) == .text("hello"))
        await socket.close()
    }

    @Test("how the server's close ends the messages", arguments: [
        ("/close?code=1000", WebSocketError?.none),
        ("/close?code=1001&reason=restart", nil),
        ("/close?code=4000&reason=bye", .closed(code: 4000, reason: "bye")),
    ])
    func theServerCloses(path: String, expected: WebSocketError?) async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: path))
        if let expected {
            #expect(await Self.webSocketError { _ = try await Self.next(socket) } == expected)
        } else {
            #expect(try await Self.next(socket) == nil)
        }
    }

    @Test("what the server may not do closes with its code", arguments: [
        ("/bad-utf8", UInt16(1007)),
        ("/masked", 1002),
    ])
    func violations(path: String, code: UInt16) async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: path))
        let error = await Self.webSocketError { _ = try await Self.next(socket) }
        guard case .protocolViolation(let sent, _)? = error else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(sent == code)
    }

    @Test func aMessageOverTheLimitClosesWith1009() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: "/echo", options: WebSocketOptions(maxMessageBytes: 10)))
        try await socket.send(.text("0123456789"))
        #expect(try await Self.next(socket) == .text("0123456789"))
        try await socket.send(.text("0123456789A"))
        #expect(await Self.webSocketError { _ = try await Self.next(socket) }
                == .protocolViolation(code: 1009, reason: "a frame was over the message limit"))
    }

    /// Keep-alive pings: an answered one keeps the connection, an unanswered one ends it. The
    /// first connection's interval leaves a loaded machine two seconds for the pong.
    @Test func keepAlivePings() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: "/echo", options: WebSocketOptions(pingInterval: .seconds(2))))
        await server.pingsAnswered(atLeast: 1)
        try await socket.send(.text("still here"))
        #expect(try await Self.next(socket) == .text("still here"))
        await socket.close()

        let deaf = try await Self.service(server).send(.webSocket(path: "/deaf", options: WebSocketOptions(pingInterval: .milliseconds(20))))
        #expect(await Self.webSocketError { _ = try await Self.next(deaf) } == .pingTimedOut)
    }

    @Test func aDroppedConnectionIsADrop() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server).send(.webSocket(path: "/drop"))
        try await socket.send(.text("bye"))
        #expect(await Self.webSocketError { _ = try await Self.next(socket) } == .dropped)
    }

    /// The upgrade goes through the interceptors: a `401` is retried after the token's refresh,
    /// as a request's would be.
    @Test func aRefusedUpgradeIsRetriedByTheInterceptors() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await Self.service(server, interceptors: [TokenInterceptor()]).send(.webSocket(path: "/token"))
        try await socket.send(.text("in"))
        #expect(try await Self.next(socket) == .text("in"))
        await socket.close()

        let refused = await Self.service(server).completion(of: Request.webSocket(path: "/token"))
        guard case .failure(.httpStatus(401, let body, let headers)) = refused else {
            Issue.record("expected a 401, got \(refused)")
            return
        }
        #expect(String(decoding: body, as: UTF8.self) == "a fresh token is needed")
        #expect(headers[.wwwAuthenticate] == "Bearer")
    }

    /// The upgrade stores the cookies of its 101 and sends the service's cookies and headers.
    @Test func cookiesAndHeadersGoWithTheUpgrade() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let service = Self.service(server, interceptors: [TokenInterceptor()])
        let first = try await service.send(.webSocket(path: "/headers"))
        #expect(try await Self.next(first) == .text("authorization=Bearer stale; cookie="))
        await first.close()
        let second = try await service.send(.webSocket(path: "/headers"))
        #expect(try await Self.next(second) == .text("authorization=Bearer stale; cookie=ws=1"))
        await second.close()
    }

    @Test func aSubprotocolNotOfferedFailsTheUpgrade() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let result = await Self.service(server).completion(of: Request.webSocket(path: "/wrong-protocol",
                                                                                  options: WebSocketOptions(subprotocols: ["chat"])))
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(error.code == .badServerResponse)
        #expect(error.detail.contains("other"))
    }

    /// A reader that does not read stops the connection's reading: the server's writes wait,
    /// and every message arrives, in order, once it reads.
    @Test func aSlowReaderHoldsTheServerBack() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let count = 512
        let socket = try await Self.service(server).send(.webSocket(path: "/flood?count=\(count)&bytes=65536"))
        let written = await server.floodStalled()
        #expect(written < count)
        var received = 0
        for try await message in socket.messages {
            guard case .binary(let data) = message else { break }
            #expect(data.count == 65_536 && data.first == UInt8(truncatingIfNeeded: received))
            received += 1
            if received == count { break }
        }
        #expect(received == count)
        await socket.close()
    }

    /// `wss:` goes through the transport's trust settings: a CA of the settings is trusted, the
    /// system's roots do not know it, and a pin of another key refuses the server before the
    /// upgrade is sent.
    @Test func wssUsesTheServicesTrustAndPins() async throws {
        try await TrustFixture.run { fixture in
            let server = try await WebSocketServer.start(presenting: fixture.certificates.server)
            defer { server.stop() }
            let url = server.url("/echo", scheme: "wss")
            func service(_ trust: TrustSettings) throws -> Service {
                Service(configuration: ServiceConfiguration(timeout: .seconds(120)),
                        transport: try NIOTransport(connection: ConnectionSettings(trust: trust)))
            }
            let socket = try await service(fixture.testCA).send(.webSocket(url: url))
            try await socket.send(.text("over TLS"))
            #expect(try await Self.next(socket) == .text("over TLS"))
            await socket.close()

            let untrusted = await (try service(TrustSettings())).completion(of: Request.webSocket(url: url))
            #expect(untrusted.tlsFailure?.check == .untrustedRoot, "\(untrusted)")

            var pinned = fixture.testCA
            pinned.pinnedKeys = [try PublicKeyPin(sha256Base64: fixture.certificates.otherCA.publicKeyPin)]
            let mismatch = await (try service(pinned)).completion(of: Request.webSocket(url: url))
            guard case .pinMismatch? = mismatch.tlsFailure?.check else {
                Issue.record("expected a pin mismatch, got \(mismatch)")
                return
            }
        }
    }

    @Test func urlSessionSaysWhichTransportOpensWebSockets() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")))
        let result = await service.completion(of: Request.webSocket(path: "/echo"))
        guard case .failure(.connection(.unsupported(let feature, let transport))) = result else {
            Issue.record("expected unsupported, got \(result)")
            return
        }
        #expect(transport == "URLSessionTransport")
        #expect(feature.contains("NIOTransport") && feature.contains("NIO trait"))
    }

    #if canImport(Glibc)
    @Test func cancellingAnUpgradeThatAwaitsItsAnswerEndsItAndItsConnection() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let service = Service(configuration: ServiceConfiguration(),
                              transport: NIOTransport())
        let request = Request.webSocket(url: URL(string: "ws://127.0.0.1:\(listener.port)/waiting")!)
        let result = Task { await service.completion(of: request) }
        // The upgrade was sent and waits for an answer that never comes.
        let received = try await listener.acceptAndRead()
        #expect(received.hasPrefix("GET /waiting HTTP/1.1"))
        request.cancel()
        guard case .failure(.cancelled) = await result.value else {
            Issue.record("expected cancelled")
            return
        }
        #expect(try await listener.readUntilClosed(), "the cancelled upgrade's connection was not closed")
    }
    #endif

    @Test func wsURLsAreSentAsHTTP() {
        #expect(Request<WebSocket>.httpURL(for: URL(string: "ws://a.example/x?y=1")!).absoluteString == "http://a.example/x?y=1")
        #expect(Request<WebSocket>.httpURL(for: URL(string: "WSS://a.example/")!).absoluteString == "https://a.example/")
        #expect(Request<WebSocket>.httpURL(for: URL(string: "https://a.example/")!).absoluteString == "https://a.example/")
    }
}

/// A 16 MiB message each way, in a suite that `scripts/suite` runs on its own: masking it in a
/// debug build holds an event loop for seconds. Under a sanitizer (`NK_SANITIZER`), where it
/// would hold one for much longer beside other tests, 1 MiB.
@Suite("WebSockets: a large message")
struct WebSocketLargeMessageTests {
    static let size = ProcessInfo.processInfo.environment["NK_SANITIZER"] == nil ? 16 << 20 : 1 << 20

    @Test func aSixteenMebibyteMessageGoesBothWays() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socket = try await WebSocketTests.service(server).send(.webSocket(path: "/echo"))
        var bytes = Data(repeating: 7, count: Self.size)
        for index in stride(from: 0, to: bytes.count, by: 4_099) { bytes[index] = UInt8(truncatingIfNeeded: index) }
        try await socket.send(.binary(bytes))
        #expect(try await WebSocketTests.next(socket) == .binary(bytes))
        await socket.close()
    }

    /// The same with Python's `websockets`, which has no message limit on that port.
    @Test(.enabled(if: PythonPeer.python != nil, "Python's websockets is not in .build/peers/venv: run scripts/bootstrap test"))
    func aSixteenMebibyteMessageGoesBothWaysWithThePeer() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/echo")))
            var bytes = Data(repeating: 3, count: Self.size)
            for index in stride(from: 0, to: bytes.count, by: 4_099) { bytes[index] = UInt8(truncatingIfNeeded: index) }
            try await socket.send(.binary(bytes))
            #expect(try await WebSocketTests.next(socket) == .binary(bytes))
            await socket.close()
        }
    }
}

#if canImport(Glibc)
/// A loopback listener that reads what a client sends and never answers.
final class SilentListener: Sendable {
    let port: Int
    private let socket: Int32
    private let client = Protected<Int32?>(nil)

    init() throws {
        (socket, port) = try LoopbackSocket.bound(backlog: 4)
    }

    /// Accepts one connection and returns the first bytes it sent (within 10 seconds).
    func acceptAndRead() async throws -> String {
        try await Self.blocking { [socket, client] in
            let accepted = accept(socket, nil, nil)
            guard accepted >= 0 else { throw POSIXError(.ECONNABORTED) }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(accepted, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            client.withLock { $0 = accepted }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(accepted, &buffer, buffer.count, 0)
            guard count > 0 else { throw POSIXError(.ETIMEDOUT) }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    /// True when the client closed the accepted connection (within 10 seconds).
    func readUntilClosed() async throws -> Bool {
        guard let accepted = client.snapshot else { return false }
        return try await Self.blocking {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(accepted, &buffer, buffer.count, 0)
                if count == 0 { return true }
                if count < 0 { return false }
            }
        }
    }

    func close() {
        if let accepted = client.snapshot { Glibc.close(accepted) }
        Glibc.close(socket)
    }

    /// Runs `work` on a thread of its own, off the concurrency pool.
    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
#endif
