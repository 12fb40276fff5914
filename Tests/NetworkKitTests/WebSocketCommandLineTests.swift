import FixtureServer
import Testing

/// `nk ws` against the WebSocket fixture: standard input out as messages, messages in as lines,
/// the end of the connection as the exit status.
@Suite("nk ws")
struct WebSocketCommandLineTests {
    @Test func linesGoOutAndMessagesComeBack() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["ws", "--subprotocol", "chat", server.url("/echo").absoluteString],
                                            input: "one\ntwo words\n")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "one\ntwo words\n")
    }

    @Test func theServersCloseCodeIsTheExitAndItsWords() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let closed = try await CommandLine_.nk(["ws", server.url("/close?code=4000&reason=bye").absoluteString])
        #expect(closed.status == 1)
        #expect(closed.errors.contains("4000") && closed.errors.contains("bye"), "\(closed.errors)")

        let normal = try await CommandLine_.nk(["ws", server.url("/close?code=1000").absoluteString])
        #expect(normal.status == 0, "\(normal.errors)")

        let refused = try await CommandLine_.nk(["ws", server.url("/nowhere").absoluteString])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("404"), "\(refused.errors)")

        let tooLarge = try await CommandLine_.nk(["ws", "--max-message-size", "3", server.url("/echo").absoluteString],
                                                 input: "four\n")
        #expect(tooLarge.status == 1)
        #expect(tooLarge.errors.contains("1009"), "\(tooLarge.errors)")
    }

    /// A peer no one here wrote answers a close as soon as it reads it, and sends nothing after
    /// it: Python's websockets drops the echo of a line whose close came with it. So nk waits for
    /// the server to be quiet (`--linger`) before it closes, and the echo of the last line is
    /// printed however late the peer sends it.
    @Test(.enabled(if: PythonPeer.python != nil, "Python's websockets is not in .build/peers/venv: run scripts/bootstrap test"))
    func theLastLinesEchoIsPrintedBeforeTheClose() async throws {
        try await PythonPeer.run { peer in
            for _ in 0..<5 {
                let run = try await CommandLine_.nk(["ws", "--linger", "0.5", peer.url("/echo").absoluteString],
                                                    input: "hi\n")
                #expect(run.status == 0, "\(run.errors)")
                #expect(run.output == "hi\n")
            }
        }
    }

    /// Through the proxy with its credentials, compressed with a peer that accepts it. The input
    /// stays open, so the peer's close ends the run (a close at the input's end could cross the
    /// echo).
    @Test(.enabled(if: PythonPeer.python != nil, "Python's websockets is not in .build/peers/venv: run scripts/bootstrap test"))
    func compressedThroughAProxy() async throws {
        try await PythonPeer.run { peer in
            let proxy = try await ForwardProxy.start(user: "ann", password: "s3cret")
            defer { proxy.stop() }
            let run = try await CommandLine_.nk(["ws", "--compress", "--proxy", "http://ann:s3cret@127.0.0.1:\(proxy.port)",
                                                 peer.url("/extensions?once", on: .deflate).absoluteString],
                                                input: "hello\n", keepingInputOpen: true)
            #expect(run.status == 0, "\(run.errors)")
            let lines = run.output.split(separator: "\n")
            #expect(lines.first?.hasPrefix("permessage-deflate") == true, "\(run.output)")
            #expect(lines.dropFirst().first == "hello", "\(run.output)")
            #expect(proxy.entries.map(\.method) == ["CONNECT"])
        }
    }
}
