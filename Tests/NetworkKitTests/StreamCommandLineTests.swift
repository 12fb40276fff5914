import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// `nk events` and `nk get --stream / --json-lines` as a user runs them: the real binary against
/// the fixture server's streaming routes, on both transports.
@Suite("nk and streams")
struct StreamCommandLineTests {
    /// The fields of one line `nk events` printed.
    struct EventLine: Decodable, Equatable {
        let type: String
        let data: String
        let id: String
    }

    /// Each line of `output` as an event; a line that is not one fails the test.
    static func events(in output: String) throws -> [EventLine] {
        try output.split(separator: "\n").map { try JSONDecoder().decode(EventLine.self, from: Data($0.utf8)) }
    }

    @Test("nk events prints each event as {type, data, id} and exits 0 when the stream ends with --no-reconnect",
          arguments: ["nio", "urlsession"])
    func eventLines(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["events", "--transport", transport, "--no-reconnect", server.url("/events?count=3")])
        #expect(run.status == 0, "\(run.errors)")
        let lines = try Self.events(in: run.output)
        #expect(lines.map(\.type) == ["tick", "tick", "tick"])
        #expect(lines.map(\.id) == ["1", "2", "3"])
        #expect(lines.first?.data == #"{"n":1,"connection":1,"auth":""}"#)
        // Every key in this order, nothing else: the line is exactly what the format promises.
        #expect(run.output.hasPrefix(#"{"type":"tick","data":"{\"n\":1,"#), "\(run.output)")
    }

    @Test("an event without a type or an id is a message with the id \"\"", arguments: ["nio", "urlsession"])
    func defaults(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["events", "--transport", transport, "--no-reconnect",
                                             server.url("/events/many?count=2&size=4")])
        #expect(run.status == 0, "\(run.errors)")
        #expect(try Self.events(in: run.output) == [EventLine(type: "message", data: "1xxx", id: ""),
                                                    EventLine(type: "message", data: "2xxx", id: "")])
    }

    @Test("--max-events exits 0 after N; --last-event-id resumes after it; a 204 exits 0", arguments: ["nio", "urlsession"])
    func exits(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let limited = try await CommandLine_.nk(["events", "--transport", transport, "--max-events", "2",
                                                 server.url("/events?count=50&interval=20")])
        #expect(limited.status == 0, "\(limited.errors)")
        #expect(try Self.events(in: limited.output).map(\.id) == ["1", "2"])

        // Reconnects after the first connection's end, and the 204 that follows ends the run.
        let resumed = try await CommandLine_.nk(["events", "--transport", transport, "--last-event-id", "3",
                                                 server.url("/events?count=5&stream=resume")])
        #expect(resumed.status == 0, "\(resumed.errors)")
        #expect(try Self.events(in: resumed.output).map(\.id) == ["4", "5"])

        let empty = try await CommandLine_.nk(["events", "--transport", transport, server.url("/events/no-content")])
        #expect(empty.status == 0, "\(empty.errors)")
        #expect(empty.output.isEmpty)
    }

    @Test("a status or a Content-Type that ends the stream exits 1 with the kit's words", arguments: ["nio", "urlsession"])
    func failures(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let unavailable = try await CommandLine_.nk(["events", "--transport", transport, server.url("/events/status/503")])
        #expect(unavailable.status == 1)
        #expect(unavailable.errors.hasPrefix("nk: ") && unavailable.errors.contains("503"), "\(unavailable.errors)")

        let wrongType = try await CommandLine_.nk(["events", "--transport", transport, server.url("/events/wrong-type")])
        #expect(wrongType.status == 1)
        #expect(wrongType.errors.contains("text/event-stream"), "\(wrongType.errors)")

        let zero = try await CommandLine_.nk(["events", "--max-events", "0", server.url("/events")])
        #expect(zero.status != 0)
        #expect(zero.errors.contains("--max-events must be at least 1"), "\(zero.errors)")
    }

    @Test("each event line is written as the event arrives, while the stream goes on", arguments: ["nio", "urlsession"])
    func flushedPerEvent(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        // The second event comes a minute after the first: the first line must be out before.
        let (firstLine, wasRunning) = try await CommandLine_.firstLine(of: ["events", "--transport", transport,
                                                                            server.url("/events?count=2&interval=60000")])
        #expect(wasRunning, "nk had exited when its first line was read")
        #expect(try Self.events(in: firstLine).map(\.id) == ["1"])
    }

    @Test("nk get --json-lines prints one compact value per line, the key path's, and fails on a bad line's code",
          arguments: ["nio", "urlsession"])
    func jsonLines(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, "--json-lines", "--key-path", "data",
                                             server.url("/jsonl?count=3")])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4 && lines.last == "", "\(run.output)")
        for (index, line) in lines.dropLast().enumerated() {
            let value = try JSON(data: Data(line.utf8))
            #expect(value["id"]?.intValue == Int64(index + 1))
            #expect(value["name"]?.stringValue == "item \(index + 1)")
            // Compact: no space but the one inside the name.
            #expect(line.filter { $0 == " " }.count == 1, "not compact: \(line)")
        }

        let failing = try await CommandLine_.nk(["get", "--transport", transport, "--json-lines", "--code-key", "code",
                                                 server.url("/jsonl?count=3&fail_at=2")])
        #expect(failing.status == 1)
        #expect(failing.output.split(separator: "\n").count == 1, "\(failing.output)")
        #expect(failing.errors.contains("line 2 is bad"), "\(failing.errors)")
    }

    @Test("nk get --stream prints the body as it is, and refuses a form", arguments: ["nio", "urlsession"])
    func rawStream(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let url = server.url("/drip?bytes=120&chunk=40&interval=10")
        let streamed = try await CommandLine_.nk(["get", "--transport", transport, "--stream", url])
        let whole = try await CommandLine_.nk(["get", "--transport", transport, url])
        #expect(streamed.status == 0 && whole.status == 0, "\(streamed.errors) \(whole.errors)")
        #expect(streamed.output.utf8.count == 120)
        #expect(streamed.output == whole.output)

        let form = try await CommandLine_.nk(["get", "--transport", transport, "--stream", "-F", "a=b", url])
        #expect(form.status != 0)
        #expect(form.errors.contains("send no body"), "\(form.errors)")
    }

    @Test("nk get -T - sends standard input as it reads it: a PUT, chunked on nio", arguments: ["nio", "urlsession"])
    func uploadFromStandardInput(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, "-T", "-", "-H", "Content-Type: text/plain",
                                             "--json", server.url("/echo")], input: "rows\nfrom\nstdin\n")
        #expect(run.status == 0, "\(run.errors)")
        let echo = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        #expect(echo?["method"] as? String == "PUT")
        #expect(echo?["body"] as? String == "rows\nfrom\nstdin\n")
        let headers = (echo?["headers"] as? [String: String] ?? [:]).reduce(into: [String: String]()) { $0[$1.key.lowercased()] = $1.value }
        #expect(headers["content-type"] == "text/plain")
        if transport == "nio" { #expect(headers["transfer-encoding"] == "chunked") }
    }
}
