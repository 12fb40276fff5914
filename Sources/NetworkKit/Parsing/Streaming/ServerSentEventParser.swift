import Foundation

/// Server-sent events (`text/event-stream`), read exactly as the WHATWG HTML standard's event
/// stream interpretation says:
/// - the body is UTF-8, bytes that are not become U+FFFD, and one leading byte order mark is
///   dropped;
/// - lines end at CR, LF or CRLF; a line starting with `:` is a comment;
/// - a field is the text before the first `:` and its value the text after it, one leading space
///   removed; a line without `:` is a field with an empty value;
/// - `data` lines are joined with LF; `event` sets the type; `id` sets the last event ID unless its
///   value contains U+0000 (an empty value clears it), and the ID carries over to later events
///   and to reconnections; `retry` sets the reconnection time when it is ASCII digits only;
///   other fields are ignored;
/// - a blank line dispatches the event, unless no data came; an event the body ends in the
///   middle of is not dispatched.
///
/// ``begin(_:)`` accepts only a `text/event-stream` answer. `maxLineLength` bounds a line and
/// `maxEventBytes` an event's data; past them the parser throws a ``ParseError`` of kind `limit`.
public struct ServerSentEventParser: StreamParser {
    /// The longest event data, in bytes: the data lines' values, each with the LF that follows it.
    public let maxEventBytes: Int64
    private var lines: LineSplitter
    private var data: [UInt8] = []
    private var eventType = ""
    private var lastEventIDBuffer: String
    private var lastEventID: String
    private var retry: Duration?
    /// True until the body's first line: it may start with a byte order mark.
    private var atBodyStart = true

    /// A parser whose stream resumes after `lastEventID` (sent as `Last-Event-ID` until the stream
    /// gives one), with lines of up to `maxLineLength` bytes and events of up to `maxEventBytes`
    /// bytes of data (1 MiB and 16 MiB by default).
    public init(lastEventID: String = "", maxLineLength: Int64 = 1 << 20, maxEventBytes: Int64 = 16 << 20) {
        lines = LineSplitter(maxLineLength: maxLineLength, parser: "events")
        self.maxEventBytes = max(maxEventBytes, 1)
        self.lastEventID = lastEventID
        lastEventIDBuffer = lastEventID
    }

    /// The longest line, in bytes, that it accepts.
    public var maxLineLength: Int64 { Int64(lines.maxLineLength) }

    /// Accepts a `text/event-stream` answer only; forgets the event and line a last body left
    /// unfinished, and keeps the last event ID and reconnection time.
    public mutating func begin(_ response: Response) throws {
        guard response.mimeType == "text/event-stream" else {
            let got = response.headerFields[.contentType].map { "\"\($0)\"" } ?? "missing"
            throw ParseError(parser: "events", reason: "the Content-Type is \(got), not text/event-stream", kind: .contentType)
        }
        lines.reset()
        data.removeAll(keepingCapacity: true)
        eventType = ""
        lastEventIDBuffer = lastEventID
        atBodyStart = true
    }

    /// The events `chunk` completes.
    public mutating func parse(_ chunk: Data) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var splitter = lines.take()
        defer { lines = splitter }
        try splitter.forEachLine(in: chunk) { line in
            if let event = try process(line) { events.append(event) }
        }
        return events
    }

    /// Nothing: an event the body ends in the middle of is not dispatched.
    public mutating func finish() throws -> [ServerSentEvent] {
        lines.reset()
        data.removeAll(keepingCapacity: true)
        eventType = ""
        return []
    }

    /// The last event ID and the server's reconnection time.
    public var resumption: StreamResumption {
        StreamResumption(lastEventID: lastEventID, retry: retry)
    }

    /// One line: a field, a comment, or the blank line that dispatches.
    private mutating func process(_ whole: UnsafeRawBufferPointer) throws -> ServerSentEvent? {
        guard var start = whole.baseAddress?.assumingMemoryBound(to: UInt8.self), !whole.isEmpty else {
            atBodyStart = false
            return dispatch()
        }
        let end = start + whole.count
        if atBodyStart {
            atBodyStart = false
            if whole.count >= 3, start[0] == 0xEF, start[1] == 0xBB, start[2] == 0xBF {
                start += 3
                if start == end { return dispatch() }
            }
        }
        if start[0] == UInt8(ascii: ":") { return nil }
        // The field runs to the first colon (or the end); the value follows it, less one space.
        let colon = memchr(start, Int32(UInt8(ascii: ":")), end - start)
            .map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) } ?? end
        let field = UnsafeBufferPointer(start: start, count: colon - start)
        var valueStart = colon < end ? colon + 1 : end
        if valueStart < end, valueStart.pointee == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeBufferPointer(start: valueStart, count: end - valueStart)
        switch Field(field) {
        case .data:
            guard Int64(data.count + value.count + 1) <= maxEventBytes else {
                throw ParseError(parser: "events", reason: "an event's data is longer than the limit of \(maxEventBytes) bytes",
                                 kind: .limit)
            }
            data.append(contentsOf: value)
            data.append(.lineFeed)
        case .event:
            eventType = String(decoding: value, as: UTF8.self)
        case .id:
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case .retry:
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retry = .milliseconds(Self.milliseconds(value))
            }
        case .other:
            break
        }
        return nil
    }

    /// The fields the standard gives meaning to, told apart by their bytes.
    private enum Field {
        case data, event, id, retry, other

        init(_ name: UnsafeBufferPointer<UInt8>) {
            func equals(_ bytes: StaticString) -> Bool {
                guard let base = name.baseAddress, name.count == bytes.utf8CodeUnitCount else { return false }
                return memcmp(base, bytes.utf8Start, name.count) == 0
            }
            switch name.count {
            case 4 where equals("data"): self = .data
            case 5 where equals("event"): self = .event
            case 2 where equals("id"): self = .id
            case 5 where equals("retry"): self = .retry
            default: self = .other
            }
        }
    }

    /// The blank line: the event, if any data came.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = ""
        }
        guard !data.isEmpty else { return nil }
        let text = data.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self) }
        return ServerSentEvent(type: eventType.isEmpty ? "message" : eventType, data: text, id: lastEventID)
    }

    /// ASCII digits as a number of milliseconds, capped at about 100 days.
    private static func milliseconds(_ digits: UnsafeBufferPointer<UInt8>) -> Int64 {
        var value: Int64 = 0
        for digit in digits {
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
            if value > 10_000_000_000 { return 10_000_000_000 }
        }
        return value
    }
}
