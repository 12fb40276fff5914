import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// Streaming requests end to end against the fixture server's event-stream, JSON Lines and drip
/// routes, on both transports.
@Suite("Streaming")
struct StreamingTests {
    /// A stream name no other test shares (the server counts connections per name).
    static func name(_ test: String, _ transport: TransportKind) -> String {
        "\(test)-\(transport.rawValue)-\(UUID().uuidString.prefix(8))"
    }

    /// Reconnection fast enough for tests.
    static let quick = StreamReconnection(delay: .milliseconds(20), maxDelay: .milliseconds(200), maxFailedConnects: 3)

    struct Tick: Decodable, Equatable {
        var n: Int
        var connection: Int
        var auth: String
    }

    static func tick(_ event: ServerSentEvent) -> Tick? {
        try? JSONDecoder().decode(Tick.self, from: Data(event.data.utf8))
    }

    @Test("an event stream as a sequence: every event, then the end on 204", arguments: TransportKind.allCases)
    func sequence(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=5&stream=\(Self.name("seq", transport))",
                                    reconnection: Self.quick)
        var events: [ServerSentEvent] = []
        for try await event in fixture.service.stream(request) { events.append(event) }
        #expect(events.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(events.allSatisfy { $0.type == "tick" })
        #expect(events.compactMap(Self.tick).map(\.n) == [1, 2, 3, 4, 5])
        #expect(request.state == .finished)
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test("reconnects after each clean end with Last-Event-ID, adapting each connection again",
          arguments: TransportKind.allCases)
    func reconnects(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let tokens = TokenCounter()
        let request = StreamRequest(path: "/events?count=6&close_after=2&retry=30&stream=\(Self.name("re", transport))",
                                    reconnection: Self.quick)
        request.interceptors = [tokens]
        let items = Recorder<Tick>()
        request.addItemHandler { _, event in Self.tick(event).map(items.append) }
        let result = await fixture.service.completion(of: request)
        let summary = try result.get()
        #expect(items.all.map(\.n) == [1, 2, 3, 4, 5, 6])
        #expect(items.all.map(\.connection) == [1, 1, 2, 2, 3, 3])
        #expect(items.all.map(\.auth) == ["Bearer token-1", "Bearer token-1", "Bearer token-2", "Bearer token-2",
                                          "Bearer token-3", "Bearer token-3"])
        #expect(summary.itemCount == 6)
        #expect(summary.lastEventID == "6")
        #expect(summary.ending == .noContent)
        #expect(summary.connectionCount == 3)
        #expect(request.attemptCount == 4)   // three streams and the 204
    }

    @Test("a dropped connection resumes where it was; the half event is not dispatched",
          arguments: TransportKind.allCases)
    func drop(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/drop?count=6&stream=\(Self.name("drop", transport))",
                                    reconnection: Self.quick)
        var ids: [String] = []
        for try await event in fixture.service.stream(request) { ids.append(event.id) }
        #expect(ids == ["1", "2", "3", "4", "5", "6"])
    }

    @Test("handlers: items in order, then the completion, each once", arguments: TransportKind.allCases)
    func handlers(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=20&stream=\(Self.name("h", transport))",
                                    reconnection: Self.quick)
        let log = Recorder<String>()
        request.addItemHandler { _, event in log.append("a\(event.id)") }
        request.addItemHandler { _, event in log.append("b\(event.id)") }
        request.addCompletionHandler { _, result in log.append("done \(result.success?.itemCount ?? -1)") }
        _ = await fixture.service.completion(of: request)
        let expected = (1...20).flatMap { ["a\($0)", "b\($0)"] } + ["done 20"]
        #expect(log.all == expected)
    }

    @Test("stops for good on a status it does not accept, without reconnecting", arguments: TransportKind.allCases)
    func status(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/status/503", reconnection: Self.quick)
        let result = await fixture.service.completion(of: request)
        guard case .httpStatus(503, _, _) = result.failure else {
            Issue.record("expected HTTP 503, got \(result)")
            return
        }
        #expect(request.attemptCount == 1)
    }

    @Test("stops for good on a Content-Type that is not an event stream", arguments: TransportKind.allCases)
    func wrongType(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/wrong-type", reconnection: Self.quick)
        let result = await fixture.service.completion(of: request)
        guard case .parse(let error) = result.failure else {
            Issue.record("expected a parse error, got \(result)")
            return
        }
        #expect(error.kind == .contentType)
        #expect(error.reason.contains("text/plain"))
        #expect(request.attemptCount == 1)
    }

    @Test("a 204 ends the stream with no items", arguments: TransportKind.allCases)
    func noContent(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/no-content", reconnection: Self.quick)
        let summary = try await fixture.service.completion(of: request).get()
        #expect(summary.ending == .noContent)
        #expect(summary.itemCount == 0)
    }

    @Test("leaving the loop cancels the request and its transfer", arguments: TransportKind.allCases)
    func leaving(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=1000&interval=20&stream=\(Self.name("leave", transport))")
        var seen = 0
        for try await _ in fixture.service.stream(request) {
            seen += 1
            if seen == 3 { break }
        }
        #expect(seen == 3)
        // The iterator is gone: the request is cancelled, and out of the service.
        #expect(request.state == .cancelled)
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test("cancelling the consuming task ends the loop with cancelled", arguments: TransportKind.allCases)
    func cancelTask(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=1000&interval=20&stream=\(Self.name("task", transport))")
        let service = fixture.service
        let firstSeen = AsyncStream.makeStream(of: Void.self)
        let consumer = Task {
            var count = 0
            do {
                for try await _ in service.stream(request) {
                    count += 1
                    firstSeen.continuation.yield()
                }
                return "ended after \(count)"
            } catch {
                return "\(error)"
            }
        }
        for await _ in firstSeen.stream { break }
        consumer.cancel()
        #expect(await consumer.value == "cancelled")
        #expect(request.state == .cancelled)
    }

    @Test("cancel by id stops a stream", arguments: TransportKind.allCases)
    func cancelByID(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=1000&interval=20&stream=\(Self.name("id", transport))")
        let service = fixture.service
        request.addItemHandler { request, event in
            if event.id == "2" { service.cancel(id: request.id) }
        }
        let result = await service.completion(of: request)
        #expect(result.failure?.isCancellation == true)
    }

    @Test("JSON Lines into models, the business code checked per line", arguments: TransportKind.allCases)
    func jsonLines(transport: TransportKind) async throws {
        struct Item: Codable, Sendable, Equatable { var id: Int; var name: String }
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let parser = JSONLinesParser(ModelParser(Item.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")))
        let request = StreamRequest(path: "/jsonl?count=5&fail_at=4", parser: parser)
        var items: [Item] = []
        do {
            for try await item in fixture.service.stream(request) { items.append(item) }
            Issue.record("expected the business code of line 4 to fail the stream")
        } catch {
            guard case .businessCode(let code, let message) = error else {
                Issue.record("expected a business code error, got \(error)")
                return
            }
            #expect(code == 7)
            #expect(message == "line 4 is bad")
        }
        #expect(items == [Item(id: 1, name: "item 1"), Item(id: 2, name: "item 2"), Item(id: 3, name: "item 3")])
    }

    @Test("lines whose multi-byte characters arrive split keep them whole", arguments: TransportKind.allCases)
    func utf8Lines(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let whole = try await fixture.service.send(Request(path: "/lines/utf8"))
        let expected = String(decoding: whole, as: UTF8.self)
            .split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            .map(String.init)
        let request = StreamRequest(path: "/lines/utf8", parser: LineParser())
        var lines: [String] = []
        for try await line in fixture.service.stream(request) { lines.append(line) }
        #expect(lines == Array(expected.prefix(lines.count)))
        #expect(lines.contains { $0.contains("😀") })
        #expect(lines.contains { $0.contains("€") })
    }

    @Test("a redirect is followed to the stream, and a signer signs each connection", arguments: TransportKind.allCases)
    func redirectAndSigning(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let target = "/events?count=3&stream=\(Self.name("redirect", transport))"
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let request = StreamRequest(path: "/redirect?to=\(encoded)", reconnection: .never)
        let signed = Recorder<String>()
        request.interceptors = [HeaderSigner(recorder: signed)]
        var ids: [String] = []
        for try await event in fixture.service.stream(request) { ids.append(event.id) }
        #expect(ids == ["1", "2", "3"])
        #expect(signed.all.count == 1)
    }

    @Test("an encoded event stream arrives event by event", arguments: TransportKind.allCases, ["gzip", "br", "zstd"])
    func encoded(transport: TransportKind, coding: String) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/\(coding)?count=4&stream=\(UUID().uuidString)", reconnection: .never)
        var ids: [String] = []
        for try await event in fixture.service.stream(request) { ids.append(event.id) }
        #expect(ids == ["1", "2", "3", "4"])
    }

    @Test("heartbeats keep a slow stream from timing out; silence does not", arguments: TransportKind.allCases)
    func heartbeats(transport: TransportKind) async throws {
        // Whole seconds (FoundationNetworking takes no less), five, and away from the memory-heavy
        // tests: on a loaded machine FoundationNetworking's own timer, reset by each read, has
        // fired after 3 s although heartbeats came every 100 ms.
        try await MemoryHeavy.exclusive {
            let fixture = try await Fixture.start(timeout: .seconds(5), transport: transport)
            defer { fixture.server.stop() }
            let kept = StreamRequest(path: "/events?count=2&interval=6000&comment_every=100&done=close&stream=\(Self.name("hb", transport))",
                                     reconnection: .never)
            let summary = try await fixture.service.completion(of: kept).get()
            #expect(summary.itemCount == 2)
            let silent = StreamRequest(path: "/events?count=2&interval=6000&done=close&stream=\(Self.name("silent", transport))",
                                       reconnection: .never)
            let result = await fixture.service.completion(of: silent)
            #expect(result.failure?.isTimeout == true)
        }
    }

    @Test("NIO stops reading while the consumer is behind")
    func backpressure() async throws {
        let fixture = try await Fixture.start(transport: .nio)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/jsonl/bytes?mb=256", parser: LineParser(), bufferLimit: 16)
        let received = Protected<Int64>(0)
        request.addProgressHandler { _, progress in received.withLock { $0 = progress.completedBytes } }
        var taken = 0
        for try await _ in fixture.service.stream(request) {
            taken += 1
            if taken == 20 {
                // The consumer stalls: the transport reads at most the buffers' worth ahead.
                try await Task.sleep(for: .milliseconds(500))
            }
            if taken == 40 { break }
        }
        #expect(received.snapshot < 16 << 20, "read \(received.snapshot) bytes ahead of a stalled consumer")
    }

    @Test("URLSession, which cannot pause, fails a stream whose consumer falls the whole buffer behind")
    func bufferFull() async throws {
        let fixture = try await Fixture.start(transport: .urlSession)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/jsonl/bytes?mb=64", parser: LineParser(), bufferLimit: 8)
        // The first item holds the callback queue for 300 ms; the body keeps coming meanwhile.
        let first = Protected(true)
        request.addItemHandler { _, _ in
            let isFirst = first.withLock { value in
                defer { value = false }
                return value
            }
            if isFirst { Thread.sleep(forTimeInterval: 0.3) }
        }
        let result = await fixture.service.completion(of: request)
        guard case .streamBufferFull(let limit) = result.failure else {
            Issue.record("expected streamBufferFull, got \(result)")
            return
        }
        #expect(limit == 8)
    }
}

/// Signs each attempt with a header, and records that it did.
struct HeaderSigner: RequestInterceptor {
    let recorder: Recorder<String>

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[HTTPField.Name("X-Signature")!] = "attempt-\(context.attempt)"
        recorder.append(request.url?.absoluteString ?? "")
        return request
    }
}

/// Sets `Authorization: Bearer token-N`, N counting the connections it adapted.
final class TokenCounter: RequestInterceptor {
    private let count = Protected(0)

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        let n = count.withLock { $0 += 1; return $0 }
        request.head.headerFields[HTTPField.Name("Authorization")!] = "Bearer token-\(n)"
        return request
    }
}
