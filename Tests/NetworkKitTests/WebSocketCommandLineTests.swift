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
}
