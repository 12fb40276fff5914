import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// Server-sent events whose data are JSON documents, decoded into models as they arrive, against
/// the fixture server's event stream, on both transports; and the typed error an event that does
/// not decode gives.
@Suite struct EventDataParserTests {
    struct Tick: Codable, Sendable, Equatable {
        var n: Int
        var connection: Int
    }

    @Test("each event's data decodes into a model, reconnections carry the last event ID", arguments: TransportKind.allCases)
    func decodesEachEvent(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let stream = "typed-\(transport.rawValue)-\(UUID().uuidString.prefix(8))"
        let request = StreamRequest(.path("/events?count=4&close_after=2&stream=\(stream)"),
                                    headerFields: [.accept: "text/event-stream"],
                                    parser: EventDataParser(ModelParser(Tick.self)),
                                    reconnection: StreamReconnection(delay: .milliseconds(20), maxDelay: .milliseconds(200),
                                                                     maxFailedConnects: 3))
        var ticks: [Tick] = []
        for try await tick in fixture.service.stream(request) { ticks.append(tick) }
        #expect(ticks.map(\.n) == [1, 2, 3, 4])
        #expect(ticks.map(\.connection) == [1, 1, 2, 2])
    }

    @Test("an event whose data is not the model stops the stream with a parse error naming it")
    func badEventData() throws {
        var parser = EventDataParser(ModelParser(Tick.self))
        try parser.begin(Response(url: nil, status: 200, headerFields: [.contentType: "text/event-stream"], data: Data()))
        let first = try parser.parse(Data("data: {\"n\": 1, \"connection\": 1}\n\n".utf8))
        #expect(first == [Tick(n: 1, connection: 1)])
        #expect(throws: ParseError.self) { try parser.parse(Data("data: {\"n\": \"two\"}\n\n".utf8)) }
        do {
            _ = try parser.parse(Data("data: nope\n\n".utf8))
        } catch let error as ParseError {
            #expect(error.reason.hasPrefix("event 3: "), "\(error)")
        }
    }

    @Test("a head that is not an event stream is refused")
    func refusesOtherHeads() {
        var parser = EventDataParser(ModelParser(Tick.self))
        #expect(throws: ParseError.self) {
            try parser.begin(Response(url: nil, status: 200, headerFields: [.contentType: "application/json"], data: Data()))
        }
    }
}
