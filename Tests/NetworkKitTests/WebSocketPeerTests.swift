import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing

/// The WebSocket client against a server no one here wrote: Python's `websockets` (a strict
/// RFC 6455 peer), which `scripts/bootstrap test` installs in `.build/peers/venv`. Skipped, saying
/// so, where it could not be installed.
@Suite("WebSockets against Python's websockets", .enabled(if: PythonPeer.python != nil,
                                                        "Python's websockets is not in .build/peers/venv: run scripts/bootstrap test"))
struct WebSocketPeerTests {
    @Test func echoesTextAndBinary() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/echo")))
            try await socket.send(.text("héllo"))
            #expect(try await WebSocketTests.next(socket) == .text("héllo"))
            let bytes = Data((0..<70_000).map { UInt8($0 % 251) })
            try await socket.send(.binary(bytes))
            #expect(try await WebSocketTests.next(socket) == .binary(bytes))
            await socket.close()
            #expect(try await WebSocketTests.next(socket) == nil)
        }
    }

    @Test func reassemblesItsFragments() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/fragments")))
            #expect(try await WebSocketTests.next(socket) == .text("hello"))
            await socket.close()
        }
    }

    @Test func refusesTextThatIsNotUTF8With1007() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/bad-utf8")))
            let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
            #expect(error == .protocolViolation(code: 1007, reason: "a text message was not UTF-8"))
        }
    }

    @Test func hearsItsCloseCodeAndReason() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/close")))
            let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
            #expect(error == .closed(code: 4001, reason: "peer closes"))
        }
    }

    /// The peer's own limit: a message over it closes the connection with 1009, which the client
    /// hears as the server's close.
    @Test func hearsItsMessageLimit() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/echo", limited: true)))
            try await socket.send(.binary(Data(count: 2_048)))
            let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
            guard case .closed(1009, _)? = error else {
                Issue.record("expected the peer's 1009, got \(String(describing: error))")
                return
            }
        }
    }

    @Test func aDroppedConnectionIsADrop() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/drop")))
            try await socket.send(.text("the last word"))
            let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
            #expect(error == .dropped)
        }
    }

    @Test func answersItsPing() async throws {
        try await PythonPeer.run { peer in
            let socket = try await peer.service.send(.webSocket(url: peer.url("/ping")))
            #expect(try await WebSocketTests.next(socket) == .text("pong received"))
            await socket.close()
        }
    }

    @Test func compressesBothWaysWhenItAcceptsPermessageDeflate() async throws {
        try await PythonPeer.run { peer in
            let options = WebSocketOptions(compression: true)
            let socket = try await peer.service.send(.webSocket(url: peer.url("/extensions", on: .deflate), options: options))
            guard case .text(let accepted)? = try await WebSocketTests.next(socket) else {
                Issue.record("the peer did not say what it accepted")
                return
            }
            #expect(accepted.hasPrefix("permessage-deflate"))
            let text = String(repeating: "compressible text, ", count: 5_000)
            for _ in 0..<3 {
                try await socket.send(.text(text))
                #expect(try await WebSocketTests.next(socket) == .text(text))
            }
            let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            try await socket.send(.binary(bytes))
            #expect(try await WebSocketTests.next(socket) == .binary(bytes))
            await socket.close()
            #expect(try await WebSocketTests.next(socket) == nil)

            // A peer that does not take the offer talks uncompressed.
            let plain = try await peer.service.send(.webSocket(url: peer.url("/extensions"), options: options))
            #expect(try await WebSocketTests.next(plain) == .text("none"))
            await plain.close()
        }
    }

    /// 1 MiB of text deflates to about a kilobyte: the limit holds for what it inflates to.
    @Test func theLimitHoldsForWhatAMessageInflatesTo() async throws {
        try await PythonPeer.run { peer in
            let options = WebSocketOptions(maxMessageBytes: 64 << 10, compression: true)
            let socket = try await peer.service.send(.webSocket(url: peer.url("/big-text", on: .deflate), options: options))
            let error = await WebSocketTests.webSocketError { _ = try await WebSocketTests.next(socket) }
            #expect(error == .protocolViolation(code: 1009, reason: "a message was over the limit of 65536 bytes once inflated"))
        }
    }

    /// `wss:` through an HTTP proxy: the tunnel, then TLS with the peer, checked against the test CA.
    @Test func opensThroughAProxyWithTLS() async throws {
        try await TrustFixture.run { fixture in
            try await PythonPeer.run(tls: fixture.certificates.server) { peer in
                let proxy = try await ForwardProxy.start()
                defer { proxy.stop() }
                let service = try WebSocketProxyTests.service(proxy: proxy, trust: fixture.testCA)
                let socket = try await service.send(.webSocket(url: peer.url("/echo", on: .tls)))
                try await socket.send(.text("via the proxy, over TLS"))
                #expect(try await WebSocketTests.next(socket) == .text("via the proxy, over TLS"))
                await socket.close()
                #expect(proxy.entries.map(\.method) == ["CONNECT"])
            }
        }
    }
}

/// One run of the Python peer (`Peers/websockets_peer.py`), stopped after its test.
struct PythonPeer {
    /// The virtual environment's Python with `websockets`, if `scripts/bootstrap test` made it.
    static let python = PeerTools.executable(".build/peers/venv/bin/python")

    static let script = PeerTools.script("websockets_peer.py")

    /// Its ports: without a limit, with a 1 KiB limit, with permessage-deflate, and with TLS
    /// (when it was given a certificate).
    let ports: (open: Int, limited: Int, deflate: Int, tls: Int?)
    let service: Service

    /// Which of its servers a URL is for.
    enum Port { case open, limited, deflate, tls }

    func url(_ path: String, limited: Bool = false) -> URL {
        url(path, on: limited ? .limited : .open)
    }

    func url(_ path: String, on port: Port) -> URL {
        let (scheme, number) = switch port {
        case .open: ("ws", ports.open)
        case .limited: ("ws", ports.limited)
        case .deflate: ("ws", ports.deflate)
        case .tls: ("wss", ports.tls ?? 0)
        }
        return URL(string: "\(scheme)://127.0.0.1:\(number)\(path)")!
    }

    /// Starts the peer (with a TLS port presenting `tls`, when given), runs `body` with it, and
    /// stops it.
    static func run(tls: TestIdentity? = nil, _ body: (PythonPeer) async throws -> Void) async throws {
        guard let python else { throw PeerError(message: "no Python with websockets: run scripts/bootstrap test") }
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path] + (tls.map { [$0.certificateFile.path, $0.keyFile.path] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        try launch(process)
        defer {
            // SIGKILL: the peer may have inherited a mask that blocks SIGTERM.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let line = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var bytes = Data()
                while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
                    bytes.append(first)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        let ports = line.split(separator: " ").compactMap { Int($0) }
        guard ports.count == (tls == nil ? 3 : 4) else { throw PeerError(message: "the peer printed \"\(line)\", not its ports") }
        let configuration = ServiceConfiguration()
        let peer = PythonPeer(ports: (ports[0], ports[1], ports[2], ports.count > 3 ? ports[3] : nil),
                              service: Service(configuration: configuration, transport: NIOTransport()))
        try await body(peer)
    }

    struct PeerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
