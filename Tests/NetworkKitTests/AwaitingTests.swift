import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// The ways to await a request besides `send` of a plain one: its progress as a sequence, and a
/// streaming request whose items go to its handlers.
@Suite("Awaiting")
struct AwaitingTests {
    @Test(arguments: TransportKind.allCases) func progressAsASequenceEndsWithTheRequest(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let size = 4 * 1024 * 1024
        let request = Request(path: "/bytes?count=\(size)")
        let updates = request.progressUpdates
        let reader = Task {
            var seen: [TransferProgress] = []
            for await progress in updates { seen.append(progress) }
            return seen
        }
        let body = try await fixture.service.send(request)
        let seen = await reader.value   // ends: the sequence finishes with the request
        #expect(body.count == size)
        #expect(!seen.isEmpty)
        #expect(seen.map(\.completedBytes) == seen.map(\.completedBytes).sorted())
        #expect(seen.last?.completedBytes == Int64(size))
        #expect(seen.allSatisfy { $0.direction == .download })
    }

    @Test func aSequenceMadeAfterTheFinishIsEmpty() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let request = Request(path: "/bytes?count=10")
        _ = try await fixture.service.send(request)
        var count = 0
        for await _ in request.progressUpdates { count += 1 }
        #expect(count == 0)
    }

    @Test(arguments: TransportKind.allCases) func sendOfAStreamReturnsItsSummaryAfterEveryItemHandler(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events/clock?count=5", reconnection: .never)
        let ids = Recorder<String>()
        request.addItemHandler { _, event in ids.append(event.id) }
        let summary = try await fixture.service.send(request)
        #expect(summary.itemCount == 5)
        #expect(ids.all == ["1", "2", "3", "4", "5"])
    }
}
