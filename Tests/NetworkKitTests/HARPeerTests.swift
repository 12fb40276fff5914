import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import NetworkKitTesting
import Testing

/// A HAR that no one here wrote: mitmproxy's `mitmdump`, as a reverse proxy in front of the
/// fixture server, records what the kit's requests exchanged through it; `StubTransport(har:)`
/// replays its file. mitmproxy is installed by `scripts/har-peer` (a CI stage after the test
/// command), in a virtual environment at `.build/peers/mitm`.
@Suite("HAR from mitmproxy")
struct HARPeerTests {
    static let mitmdump = PeerTools.executable(".build/peers/mitm/bin/mitmdump")

    @Test(.enabled(if: mitmdump != nil, "mitmproxy is not in .build/peers/mitm: run scripts/har-peer"))
    func aHARThatMitmproxyWroteReplays() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        try await HARTests.withHARFile { file in
            let proxy = try await MitmDump.start(try #require(Self.mitmdump), upstream: server.baseURL, har: file)
            defer { if proxy.process.isRunning { proxy.process.terminate() } }
            let service = Service(configuration: HARTests.configuration(proxy.url), transport: NIOTransport())
            let small = try await service.send(Request(path: "/json/small", parser: JSONParser()))
            let compressed = try await service.send(Request(path: "/compressed/gzip", parameters: ["count": 3], parser: JSONParser()))
            let echoed = try await service.send(Request(path: "/echo", method: .post, parameters: ["user": "ann"], parser: JSONParser()))
            let missing = await service.completion(of: Request(path: "/status/404"))
            try await proxy.stop()

            // In reverse-proxy mode mitmproxy records the upstream's URLs.
            let replayed = Service(configuration: HARTests.configuration(server.baseURL), transport: try StubTransport(har: file))
            #expect(try await replayed.send(Request(path: "/json/small", parser: JSONParser())) == small)
            #expect(try await replayed.send(Request(path: "/compressed/gzip", parameters: ["count": 3], parser: JSONParser())) == compressed)
            let echo = try await replayed.send(Request(path: "/echo", method: .post, parameters: ["user": "ann"], parser: JSONParser()))
            #expect(echo["body"] == echoed["body"])
            guard case .failure(.httpStatus(404, _, _)) = missing,
                  case .failure(.httpStatus(404, _, _)) = await replayed.completion(of: Request(path: "/status/404")) else {
                Issue.record("the 404 did not replay as a 404")
                return
            }
        }
    }
}

/// A running `mitmdump` in reverse-proxy mode that writes a HAR when it stops.
struct MitmDump {
    let process: Process
    let url: URL

    /// Starts `tool` in front of `upstream` on a free loopback port, and returns once it listens.
    static func start(_ tool: URL, upstream: URL, har: URL) async throws -> MitmDump {
        let process = Process()
        // Through the venv's Python, which unblocks SIGTERM first: a child inherits the blocked
        // signals of the thread that starts it, and the test's threads block them, so mitmdump
        // would never hear its stop.
        process.executableURL = tool.deletingLastPathComponent().appendingPathComponent("python")
        process.arguments = ["-c", """
            import os, signal, sys
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
            os.execv(sys.argv[1], sys.argv[1:])
            """, tool.path, "--mode", "reverse:\(upstream.absoluteString)", "--listen-host", "127.0.0.1", "--listen-port", "0",
                             "--set", "hardump=\(har.path)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try launch(process)   // one launch at a time: concurrent Process.run() crashes Foundation on Linux
        // mitmdump says where it listens: "… listening at 127.0.0.1:PORT."
        let port: Int? = try await withCheckedThrowingContinuation { continuation in
            Thread {
                // Reads until mitmdump ends, so its output never fills the pipe.
                var text = "", found = false
                while true {
                    let data = output.fileHandleForReading.availableData
                    if data.isEmpty { break }
                    guard !found else { continue }
                    text += String(decoding: data, as: UTF8.self)
                    if let range = text.range(of: "listening at 127.0.0.1:") {
                        let digits = text[range.upperBound...].prefix { $0.isNumber }
                        if text[range.upperBound...].dropFirst(digits.count).first != nil {
                            found = true
                            continuation.resume(returning: Int(digits))
                        }
                    }
                }
                if !found { continuation.resume(returning: nil) }
            }.start()
        }
        guard let port, let url = URL(string: "http://127.0.0.1:\(port)") else {
            process.terminate()
            throw MitmDumpError(reason: "mitmdump ended without saying where it listens")
        }
        return MitmDump(process: process, url: url)
    }

    /// Stops mitmdump (SIGTERM), which writes its HAR as it ends, and returns once it exited.
    func stop() async throws {
        process.terminate()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                process.waitUntilExit()
                continuation.resume()
            }.start()
        }
    }
}

struct MitmDumpError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
