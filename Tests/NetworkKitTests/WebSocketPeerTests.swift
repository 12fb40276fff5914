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
}

/// One run of the Python peer (`Peers/websockets_peer.py`), stopped after its test.
struct PythonPeer {
    /// The virtual environment's Python with `websockets`, if `scripts/bootstrap test` made it.
    static let python: URL? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let python = root.appendingPathComponent(".build/peers/venv/bin/python")
        return FileManager.default.isExecutableFile(atPath: python.path) ? python : nil
    }()

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Peers/websockets_peer.py")

    let ports: (open: Int, limited: Int)
    let service: Service

    func url(_ path: String, limited: Bool = false) -> URL {
        URL(string: "ws://127.0.0.1:\(limited ? ports.limited : ports.open)\(path)")!
    }

    /// Starts the peer, runs `body` with it, and stops it.
    static func run(_ body: (PythonPeer) async throws -> Void) async throws {
        guard let python else { throw PeerError(message: "no Python with websockets: run scripts/bootstrap test") }
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path]
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
        guard ports.count == 2 else { throw PeerError(message: "the peer printed \"\(line)\", not its two ports") }
        let configuration = ServiceConfiguration(callbackQueue: DispatchQueue(label: "tests.peer"))
        let peer = PythonPeer(ports: (ports[0], ports[1]), service: Service(configuration: configuration, transport: NIOTransport()))
        try await body(peer)
    }

    struct PeerError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
