import Foundation
@testable import NetworkKit
import Testing

/// `ServerSentEventParser` against the WHATWG HTML standard's event stream interpretation, case by
/// case, each fed whole, in every two-way split and one byte at a time (with EventStreamSpecTests).
@Suite("Stream parsers: server-sent events")
struct StreamParserEventTests {
    static let eventStream = Feeding.head("text/event-stream")

    static func check(_ text: String, _ expected: [ServerSentEvent], lastEventID: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) {
        check([UInt8](utf8: text), expected, lastEventID: lastEventID, sourceLocation: sourceLocation)
    }

    static func check(_ bytes: [UInt8], _ expected: [ServerSentEvent], lastEventID: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) {
        Feeding.check(ServerSentEventParser(lastEventID: lastEventID), bytes, expected, head: eventStream,
                      sourceLocation: sourceLocation)
    }

    /// The parser after `bodies`, each begun, fed whole and finished; and the events they gave.
    static func after(_ bodies: [String], lastEventID: String = "") throws -> (ServerSentEventParser, [ServerSentEvent]) {
        var parser = ServerSentEventParser(lastEventID: lastEventID)
        var events: [ServerSentEvent] = []
        for body in bodies {
            try parser.begin(eventStream)
            events += try parser.parse(Data(body.utf8))
            events += try parser.finish()
        }
        return (parser, events)
    }

    @Test("the standard's examples")
    func specExamples() {
        Self.check("data: YHOO\ndata: +2\ndata: 10\n\n", [ServerSentEvent(data: "YHOO\n+2\n10")])
        Self.check(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n", [
            ServerSentEvent(data: "first event", id: "1"), ServerSentEvent(data: "second event", id: ""),
        ])
        Self.check("data\n\ndata\ndata\n\ndata:", [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        Self.check("data:test\n\ndata: test\n\n", [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
        Self.check("event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n", [
            ServerSentEvent(type: "add", data: "73857293"), ServerSentEvent(type: "remove", data: "2153"),
            ServerSentEvent(type: "add", data: "113411"),
        ])
    }

    @Test("CR, LF and CRLF mixed, blank lines of each kind dispatch")
    func lineEndMixes() {
        Self.check("data: a\r\rdata: b\n\ndata: c\r\n\r\ndata: d\r\n\ndata: e\n\r", [
            ServerSentEvent(data: "a"), ServerSentEvent(data: "b"), ServerSentEvent(data: "c"),
            ServerSentEvent(data: "d"), ServerSentEvent(data: "e"),
        ])
        // CR LF is one line end, CR CR two, LF CR two.
        Self.check("data: a\r\n\rdata: b\n\r", [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    @Test("only the first colon splits; one space is removed, not two, and not a tab")
    func fieldsAndValues() {
        Self.check("data: a: b\n\ndata:: c\n\ndata:\t d\n\ndata:   e \n\n", [
            ServerSentEvent(data: "a: b"), ServerSentEvent(data: ": c"), ServerSentEvent(data: "\t d"),
            ServerSentEvent(data: "  e "),
        ])
    }

    @Test("field names are case-sensitive and exact; unknown fields and comments are ignored")
    func fieldNames() {
        Self.check("Data: x\n data: y\ndata : z\nfoo: bar\n:data: c\n\ndata: ok\n\n", [ServerSentEvent(data: "ok")])
        Self.check(":\n: comment\r\n:data: no\rdata: yes\n\n", [ServerSentEvent(data: "yes")])
    }

    @Test("a line without a colon is a field with an empty value")
    func noColon() {
        Self.check("data\n\n", [ServerSentEvent(data: "")])
        Self.check("event\ndata\ndata: x\n\n", [ServerSentEvent(data: "\nx")])
        Self.check("id: 5\ndata: a\n\nid\ndata: b\n\n", [ServerSentEvent(data: "a", id: "5"), ServerSentEvent(data: "b", id: "")])
    }

    @Test("event sets the type of the next dispatch only, also when an empty event resets it")
    func eventType() {
        Self.check("event: x\n\ndata: a\n\nevent: y\nevent: z\ndata: b\n\ndata: c\n\n", [
            ServerSentEvent(data: "a"), ServerSentEvent(type: "z", data: "b"), ServerSentEvent(data: "c"),
        ])
    }

    @Test("an id with U+0000 is ignored and the previous one stays; an id may contain other controls")
    func idWithNUL() {
        Self.check("id: a\ndata: 1\n\nid: b\u{0}\ndata: 2\n\nid: \u{0}\ndata: 3\n\nid: c\u{7}d\ndata: 4\n\n", [
            ServerSentEvent(data: "1", id: "a"), ServerSentEvent(data: "2", id: "a"),
            ServerSentEvent(data: "3", id: "a"), ServerSentEvent(data: "4", id: "c\u{7}d"),
        ])
    }

    @Test("the last event ID is set at dispatch, also when no data is dispatched, and starts from the init's")
    func idAtDispatch() throws {
        Self.check("data: a\n\nid: 9\n\ndata: b\n\n", [ServerSentEvent(data: "a", id: "s"), ServerSentEvent(data: "b", id: "9")],
                   lastEventID: "s")
        // An id in an unfinished event is not taken.
        let (parser, events) = try Self.after(["id: 1\ndata: a\n\nid: 2\ndata: b\n"])
        #expect(events == [ServerSentEvent(data: "a", id: "1")])
        #expect(parser.resumption.lastEventID == "1")
    }

    @Test("the last event ID carries over to the next body and to later events; a new id replaces it")
    func idAcrossBodies() throws {
        let (parser, events) = try Self.after(["id: 1\ndata: a\n\n", "data: b\n\n", "id: 2\ndata: c\n\ndata: d\n\n", "id\n\n"],
                                              lastEventID: "0")
        #expect(events == [
            ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "1"),
            ServerSentEvent(data: "c", id: "2"), ServerSentEvent(data: "d", id: "2"),
        ])
        #expect(parser.resumption.lastEventID == "")
    }

    @Test("retry takes ASCII digits only, as milliseconds, and is kept across bodies")
    func retry() throws {
        for (value, expected) in [("1000", Duration.milliseconds(1000)), ("0", .zero), ("007", .milliseconds(7)),
                                  ("10a0", nil), (" 1000", nil), ("1000 ", nil), ("", nil), ("+5", nil), ("1.5", nil),
                                  ("١٠", nil), ("99999999999999999999999", .milliseconds(10_000_000_000))] {
            let (parser, _) = try Self.after(["retry: \(value)\n\n"])
            #expect(parser.resumption.retry == expected, "retry: \(value)")
        }
        let (parser, _) = try Self.after(["retry: 2500\n\n", "data: x\n\n", "retry: x\n\n"])
        #expect(parser.resumption == StreamResumption(lastEventID: "", retry: .milliseconds(2500)))
        // retry takes effect without a dispatch, even in an event the body ends in the middle of.
        #expect(try Self.after(["retry: 300\ndata: half"]).0.resumption.retry == .milliseconds(300))
    }

    @Test("data that stays empty dispatches nothing and resets the type")
    func emptyData() {
        Self.check("event: x\nid: 3\n\n\n\r\n", [])
        Self.check("data:\n\n", [ServerSentEvent(data: "")])
    }

    @Test("an unfinished event is not dispatched: finish gives nothing and forgets it")
    func unfinished() throws {
        Self.check("data: a\n\ndata: b\n", [ServerSentEvent(data: "a")])
        Self.check("data: a\n\ndata: b\r", [ServerSentEvent(data: "a")])
        Self.check("event: e\ndata: a\n\nevent: f\ndata: b", [ServerSentEvent(type: "e", data: "a")])
        var parser = ServerSentEventParser()
        try parser.begin(Self.eventStream)
        #expect(try parser.parse(Data("event: t\ndata: half\n".utf8)).isEmpty)
        #expect(try parser.finish().isEmpty)
        #expect(try parser.parse(Data("data: next\n\n".utf8)) == [ServerSentEvent(data: "next")])
    }

    @Test("one leading BOM per body is dropped, in each body; a BOM later is not")
    func byteOrderMarks() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        Self.check(bom + [UInt8](utf8: "\ndata: a\n\n"), [ServerSentEvent(data: "a")])
        Self.check(bom + [UInt8](utf8: "data: a\n\n") + bom + [UInt8](utf8: "data: b\n\n"), [ServerSentEvent(data: "a")])
        Self.check([UInt8](utf8: "data: ") + bom + [UInt8](utf8: "x\n\n"), [ServerSentEvent(data: "\u{FEFF}x")])
        var parser = ServerSentEventParser()
        for _ in 0..<2 {
            try parser.begin(Self.eventStream)
            #expect(try parser.parse(Data(bom + [UInt8](utf8: "data: a\n\n"))) == [ServerSentEvent(data: "a")])
        }
    }

    @Test("a 2-byte and a 4-byte character split across chunks come out whole; bad bytes become U+FFFD")
    func utf8() {
        Self.check("event: é\ndata: ü😀\nid: 🎉\n\n", [ServerSentEvent(type: "é", data: "ü😀", id: "🎉")])
        Self.check([UInt8](utf8: "data: ") + [0xF0, 0x9F, 0x98] + [UInt8](utf8: "\ndata: ") + [0xC3] + [UInt8](utf8: "\n\n"),
                   [ServerSentEvent(data: "\u{FFFD}\n\u{FFFD}")])
        Self.check([UInt8](utf8: "event: ") + [0xFF] + [UInt8](utf8: "\ndata: x\n\n"), [ServerSentEvent(type: "\u{FFFD}", data: "x")])
        Self.check([0xFF] + [UInt8](utf8: "data: x\n\ndata: y\n\n"), [ServerSentEvent(data: "y")])
    }

    @Test("begin accepts text/event-stream with parameters, in any case; anything else is refused and named")
    func contentType() throws {
        var parser = ServerSentEventParser()
        for type in ["text/event-stream", "TEXT/Event-Stream; charset=utf-8", " text/event-stream ;x=y"] {
            try parser.begin(Feeding.head(type))
        }
        #expect(throws: ParseError(parser: "events", reason: "the Content-Type is \"application/json\", not text/event-stream",
                                   kind: .contentType)) {
            try parser.begin(Feeding.head("application/json"))
        }
        #expect(throws: ParseError(parser: "events", reason: "the Content-Type is missing, not text/event-stream",
                                   kind: .contentType)) {
            try parser.begin(Response(url: nil, status: 200, data: Data()))
        }
    }

    @Test("a line over maxLineLength and data over maxEventBytes throw limit errors that say which")
    func limits() {
        let lineLimit = ParseError(parser: "events", reason: "a line is longer than the limit of 10 bytes", kind: .limit)
        #expect(ServerSentEventParser(maxLineLength: 10).maxLineLength == 10)
        Feeding.check(ServerSentEventParser(maxLineLength: 10), [UInt8](utf8: "data: 1234\n\n"), [ServerSentEvent(data: "1234")],
                      head: Self.eventStream)
        Feeding.checkFails(ServerSentEventParser(maxLineLength: 10), [UInt8](utf8: "data: a\n\n: 123456789\n"),
                           before: [ServerSentEvent(data: "a")], head: Self.eventStream) { $0 as? ParseError == lineLimit }
        Feeding.checkFails(ServerSentEventParser(maxLineLength: 10), [UInt8](utf8: "data: 12345"), before: [],
                           head: Self.eventStream) { $0 as? ParseError == lineLimit }

        let eventLimit = ParseError(parser: "events", reason: "an event's data is longer than the limit of 8 bytes", kind: .limit)
        // The data buffer counts each value and its LF: 3 + 1 + 3 + 1 bytes fit in 8.
        Feeding.check(ServerSentEventParser(maxEventBytes: 8), [UInt8](utf8: "data: abc\ndata: def\n\ndata: 1234567\n\n"),
                      [ServerSentEvent(data: "abc\ndef"), ServerSentEvent(data: "1234567")], head: Self.eventStream)
        Feeding.checkFails(ServerSentEventParser(maxEventBytes: 8), [UInt8](utf8: "data: a\n\ndata: abcd\ndata: efg\n\n"),
                           before: [ServerSentEvent(data: "a")], head: Self.eventStream) { $0 as? ParseError == eventLimit }
    }
}
