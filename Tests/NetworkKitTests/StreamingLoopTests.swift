import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// Where a stream's parser runs: in the loop's task when `service.stream` is the one consumer,
/// where the transport delivers when item handlers consume too. Against the fixture server, on
/// both transports.
@Suite("Streaming: the loop that parses")
struct StreamingLoopTests {
    @Test("a loop that parses reconnects with Last-Event-ID, and the summary counts every item",
          arguments: TransportKind.allCases)
    func reconnects(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let tokens = TokenCounter()
        let request = StreamRequest(
            path: "/events?count=6&close_after=2&retry=30&stream=\(StreamingTests.name("loop-re", transport))",
            reconnection: StreamingTests.quick)
        request.interceptors = [tokens]
        var ticks: [StreamingTests.Tick] = []
        for try await event in fixture.service.stream(request) {
            if let tick = StreamingTests.tick(event) { ticks.append(tick) }
        }
        #expect(request.sink.unparsedByteLimit == 1024 * 256)
        #expect(ticks.map(\.n) == [1, 2, 3, 4, 5, 6])
        #expect(ticks.map(\.connection) == [1, 1, 2, 2, 3, 3])
        let summary = try #require(try request.result?.get() as? StreamSummary)
        #expect(summary.itemCount == 6)
        #expect(summary.lastEventID == "6")
        #expect(summary.connectionCount == 3)
        #expect(summary.ending == .noContent)
    }

    @Test("item handlers and a loop together each see every item, in order", arguments: TransportKind.allCases)
    func handlersAndLoop(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=30&stream=\(StreamingTests.name("both", transport))",
                                    reconnection: StreamingTests.quick)
        let handled = Recorder<String>()
        request.addItemHandler { _, event in handled.append(event.id) }
        let finished = AsyncStream.makeStream(of: Void.self)
        request.addCompletionHandler { _, _ in finished.continuation.yield() }
        var looped: [String] = []
        for try await event in fixture.service.stream(request) { looped.append(event.id) }
        // The handlers run on the callback queue, before the completion handlers.
        for await _ in finished.stream { break }
        let expected = (1...30).map(String.init)
        #expect(looped == expected)
        #expect(handled.all == expected)
    }

    @Test("URLSession, which cannot pause, fails a loop that falls the whole buffer behind")
    func bufferFull() async throws {
        let fixture = try await Fixture.start(transport: .urlSession)
        defer { fixture.server.stop() }
        // 8 items: the loop may hold 2 KiB it has not parsed.
        let request = StreamRequest(path: "/jsonl/bytes?mb=64", parser: LineParser(), bufferLimit: 8)
        // The loop stalls after its first line until the request ends or 4 MiB arrived.
        let stalled = AsyncStream.makeStream(of: Void.self)
        request.addProgressHandler { _, progress in
            if progress.completedBytes >= 4 << 20 { stalled.continuation.yield() }
        }
        request.addCompletionHandler { _, _ in stalled.continuation.yield() }
        var lines = 0
        do {
            for try await _ in fixture.service.stream(request) {
                lines += 1
                if lines == 1 { for await _ in stalled.stream { break } }
            }
            Issue.record("the loop ended after \(lines) lines without an error")
        } catch {
            guard case .streamBufferFull(let limit) = error else {
                Issue.record("expected streamBufferFull, got \(error)")
                return
            }
            #expect(limit == 8)
        }
    }

    @Test("a parser's error in the loop stops the request and its transfer, with the parser's error",
          arguments: TransportKind.allCases)
    func parseErrorStops(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        // Lines of 16 bytes at most: the first line of the body is longer.
        let request = StreamRequest(path: "/jsonl/bytes?mb=64", parser: LineParser(maxLineLength: 16))
        do {
            for try await _ in fixture.service.stream(request) {}
            Issue.record("expected the line limit to fail the stream")
        } catch {
            guard case .parse(let parseError) = error else {
                Issue.record("expected a parse error, got \(error)")
                return
            }
            #expect(parseError.kind == .limit)
        }
        #expect(request.state == .finished)
        #expect(fixture.service.activeRequestCount == 0)
    }
}
