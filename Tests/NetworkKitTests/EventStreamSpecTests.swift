import Foundation
@testable import NetworkKit
import Testing

/// The WHATWG event-stream interpretation, case by case, each fed whole, in every two-way split
/// and one byte at a time: the events must be the same however the bytes arrive.
@Suite("Event stream rules")
struct EventStreamSpecTests {
    static let eventStream = Response(url: nil, status: 200, headerFields: [.contentType: "text/event-stream"], data: Data())

    /// The events of `text` fed as `chunks`, and the parser's resumption after it.
    static func events(_ bytes: [UInt8], chunks: [Range<Int>], lastEventID: String = "") throws
        -> ([ServerSentEvent], StreamResumption) {
        var parser = ServerSentEventParser(lastEventID: lastEventID)
        try parser.begin(eventStream)
        var events: [ServerSentEvent] = []
        for range in chunks { events += try parser.parse(Data(bytes[range])) }
        events += try parser.finish()
        return (events, parser.resumption)
    }

    /// Every way of feeding `text` gives `expected`.
    static func check(_ text: String, _ expected: [ServerSentEvent], lastEventID: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        try check(Array(text.utf8), expected, lastEventID: lastEventID, sourceLocation: sourceLocation)
    }

    static func check(_ bytes: [UInt8], _ expected: [ServerSentEvent], lastEventID: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        var splits = [[0..<bytes.count]]
        for cut in 0...bytes.count { splits.append([0..<cut, cut..<bytes.count]) }
        splits.append((0..<bytes.count).map { $0..<($0 + 1) })
        for chunks in splits {
            let (events, _) = try events(bytes, chunks: chunks, lastEventID: lastEventID)
            #expect(events == expected, "fed as \(chunks)", sourceLocation: sourceLocation)
        }
    }

    @Test("data lines are joined with LF; one leading space is removed, not two")
    func data() throws {
        try Self.check("data: a\ndata:  b\ndata:c\n\n", [ServerSentEvent(data: "a\n b\nc")])
    }

    @Test("CR, LF and CRLF all end lines, also split across chunks")
    func lineEnds() throws {
        try Self.check("data: 1\rdata: 2\r\ndata: 3\n\r\n" + "data: 4\r\r", [
            ServerSentEvent(data: "1\n2\n3"), ServerSentEvent(data: "4"),
        ])
    }

    @Test("comments are ignored; a field without a colon has an empty value")
    func comments() throws {
        try Self.check(": hello\ndata\ndata\n\n:\n\n", [ServerSentEvent(data: "\n")])
    }

    @Test("event sets the type; message when empty or absent")
    func types() throws {
        try Self.check("event: tick\ndata: 1\n\nevent:\ndata: 2\n\ndata: 3\n\n", [
            ServerSentEvent(type: "tick", data: "1"), ServerSentEvent(data: "2"), ServerSentEvent(data: "3"),
        ])
    }

    @Test("id carries over; an id with NUL is ignored; an empty id clears it")
    func ids() throws {
        try Self.check("id: 1\ndata: a\n\ndata: b\n\nid: 2\u{0}x\ndata: c\n\nid\ndata: d\n\n", [
            ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1"),
            ServerSentEvent(data: "c", id: "1"), ServerSentEvent(data: "d", id: ""),
        ])
    }

    @Test("an event without data is not dispatched, but its id is kept")
    func noData() throws {
        let bytes = Array("id: 7\nevent: x\n\ndata: y\n\n".utf8)
        let (events, resumption) = try Self.events(bytes, chunks: [0..<bytes.count])
        #expect(events == [ServerSentEvent(data: "y", id: "7")])
        #expect(resumption.lastEventID == "7")
    }

    @Test("retry takes ASCII digits only")
    func retry() throws {
        for (text, expected) in [("retry: 1500\n\n", Duration.milliseconds(1500)), ("retry: 15a0\n\n", nil),
                                 ("retry:  1500\n\n", nil), ("retry:\n\n", nil), ("retry: -5\n\n", nil)] {
            let bytes = Array(text.utf8)
            #expect(try Self.events(bytes, chunks: [0..<bytes.count]).1.retry == expected, "\(text)")
        }
    }

    @Test("an event the body ends in the middle of is not dispatched")
    func unfinished() throws {
        try Self.check("data: a\n\ndata: b\n", [ServerSentEvent(data: "a")])
        try Self.check("data: a\n\ndata: b", [ServerSentEvent(data: "a")])
    }

    @Test("one leading byte order mark is dropped, a second is part of the field name")
    func byteOrderMark() throws {
        try Self.check([0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8), [ServerSentEvent(data: "a")])
        try Self.check([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8), [])
    }

    @Test("multi-byte characters split across chunks come out whole; bad bytes become U+FFFD")
    func utf8() throws {
        try Self.check("data: é€😀\n\n", [ServerSentEvent(data: "é€😀")])
        try Self.check(Array("data: a".utf8) + [0xFF] + Array("b\n\n".utf8), [ServerSentEvent(data: "a\u{FFFD}b")])
    }

    @Test("the last event ID carries over to the next body; the unfinished event does not")
    func acrossBodies() throws {
        var parser = ServerSentEventParser(lastEventID: "3")
        try parser.begin(Self.eventStream)
        #expect(try parser.parse(Data("data: a\n\nid: 4\ndata: half".utf8)) == [ServerSentEvent(data: "a", id: "3")])
        try parser.begin(Self.eventStream)
        #expect(try parser.parse(Data("data: b\n\n".utf8)) == [ServerSentEvent(data: "b", id: "3")])
    }

    @Test("a Content-Type that is not text/event-stream is refused")
    func contentType() throws {
        var parser = ServerSentEventParser()
        try parser.begin(Response(url: nil, status: 200, headerFields: [.contentType: "Text/Event-Stream; charset=utf-8"],
                                  data: Data()))
        #expect(throws: ParseError.self) {
            try parser.begin(Response(url: nil, status: 200, headerFields: [.contentType: "text/plain"], data: Data()))
        }
    }

    @Test("lines and events over their limits throw")
    func limits() throws {
        var lines = ServerSentEventParser(maxLineLength: 16)
        try lines.begin(Self.eventStream)
        #expect(throws: ParseError.self) { _ = try lines.parse(Data(String(repeating: "x", count: 17).utf8)) }
        var events = ServerSentEventParser(maxEventBytes: 16)
        try events.begin(Self.eventStream)
        #expect(throws: ParseError.self) { _ = try events.parse(Data("data: 0123456789\ndata: 0123456789\n".utf8)) }
    }
}
