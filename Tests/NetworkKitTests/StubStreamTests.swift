import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// A streaming request against the stub, as an app's tests would write it: the stream reconnects
/// on the injected clock, after the server's `retry:`, with `Last-Event-ID`, and ends on a 204.
@Suite("Streams on the stub", .timeLimit(.minutes(1)))
struct StubStreamTests {
    @Test func anEventStreamReconnectsWithItsLastEventIDOnTheInjectedClock() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/v1/ticks"), with: [
            .events([ServerSentEvent(type: "tick", data: "1", id: "1"), ServerSentEvent(type: "tick", data: "2", id: "2")],
                    retry: .seconds(7)),
            .events([ServerSentEvent(type: "tick", data: "3\nthree", id: "3")]),
            StubResponse(status: 204),
        ])
        let clock = RecordingClock()
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.clock = clock
        let service = Service(configuration: configuration, transport: stub)
        var events: [ServerSentEvent] = []
        for try await event in service.stream(StreamRequest(path: "/ticks")) { events.append(event) }
        #expect(events.map(\.data) == ["1", "2", "3\nthree"])
        #expect(events.map(\.type) == ["tick", "tick", "tick"])
        #expect(stub.requests.map { $0.request.head.headerFields[HTTPField.Name("Last-Event-ID")!] } == [nil, "2", "3"])
        #expect(stub.requests.allSatisfy { $0.request.head.headerFields[HTTPField.Name("Accept")!] == "text/event-stream" })
        #expect(clock.delays.count == 2)
        #expect(clock.delays.allSatisfy { $0 > .milliseconds(6_900) && $0 <= .seconds(7) })   // the server's retry, kept
    }
}
