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
    /// The longest event data, in bytes.
    public let maxEventBytes: Int
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
    public init(lastEventID: String = "", maxLineLength: Int = 1 << 20, maxEventBytes: Int = 16 << 20) {
        lines = LineSplitter(maxLineLength: maxLineLength)
        self.maxEventBytes = max(maxEventBytes, 1)
        self.lastEventID = lastEventID
        lastEventIDBuffer = lastEventID
    }

    /// Accepts a `text/event-stream` answer only; forgets the event and line a last body left
    /// unfinished, and keeps the last event ID and reconnection time.
    public mutating func begin(_ response: Response) throws {
        let type = response.header("Content-Type")
        let mediaType = type?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "text/event-stream" else {
            let got = type.map { "\"\($0)\"" } ?? "missing"
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
        var line = whole
        if atBodyStart {
            atBodyStart = false
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeRawBufferPointer(rebasing: line[3...])
            }
        }
        guard !line.isEmpty else { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let field: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = UnsafeRawBufferPointer(rebasing: line[..<colon])
            var start = colon + 1
            if start < line.count, line[start] == UInt8(ascii: " ") { start += 1 }
            value = UnsafeRawBufferPointer(rebasing: line[start...])
        } else {
            field = line
            value = UnsafeRawBufferPointer(rebasing: line[line.count...])
        }
        switch field.count {
        case 4 where field.elementsEqual("data".utf8):
            guard data.count + value.count + 1 <= maxEventBytes else {
                throw ParseError(parser: "events", reason: "an event's data is longer than the limit of \(maxEventBytes) bytes",
                                 kind: .limit)
            }
            data.append(contentsOf: value)
            data.append(.lineFeed)
        case 5 where field.elementsEqual("event".utf8):
            eventType = String(decoding: value, as: UTF8.self)
        case 2 where field.elementsEqual("id".utf8):
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case 5 where field.elementsEqual("retry".utf8):
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retry = .milliseconds(Self.milliseconds(value))
            }
        default:
            break
        }
        return nil
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
    private static func milliseconds(_ digits: UnsafeRawBufferPointer) -> Int64 {
        var value: Int64 = 0
        for digit in digits {
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
            if value > 10_000_000_000 { return 10_000_000_000 }
        }
        return value
    }
}
