import Foundation

/// Server-sent events whose data are documents of their own: each event is read by
/// ``ServerSentEventParser`` and its `data` handed to a whole-body parser, as
/// ``JSONLinesParser`` does with lines. `EventDataParser(ModelParser(Tick.self))` makes a stream
/// of `Tick`s, `EventDataParser(JSONParser(…))` checks each event's business code.
///
/// Each event's ``Response`` has the head and the service's envelope that ``begin(_:)`` got, and
/// the event's data as its body. The last event ID and the server's reconnection time carry over
/// as the event parser keeps them. An event whose data fails stops the stream with its error, the
/// events before it delivered: a ``ParseError`` with `event N: ` (N counting from 1 in each body)
/// before its reason, a business code as its parser threw it.
public struct EventDataParser<Data: ResponseParser>: StreamParser {
    /// The parser each event's data goes to.
    public let data: Data
    private var events: ServerSentEventParser
    private var template = Response(url: nil, status: 200, data: Foundation.Data())
    private var eventNumber = 0

    /// Hands the data of each event to `data`; `events` reads the stream (its limits apply).
    public init(_ data: Data, events: ServerSentEventParser = ServerSentEventParser()) {
        self.data = data
        self.events = events
    }

    /// Accepts a `text/event-stream` answer only, and keeps the head each event's response carries.
    public mutating func begin(_ response: Response) throws {
        try events.begin(response)
        template = response
        template.data = Foundation.Data()
        eventNumber = 0
    }

    /// The values of the events `chunk` completes.
    public mutating func parse(_ chunk: Foundation.Data) throws -> [Data.Output] {
        try events.parse(chunk).map { try value(of: $0) }
    }

    /// The values of events the end of the body completes (none: an unfinished event is dropped).
    public mutating func finish() throws -> [Data.Output] {
        try events.finish().map { try value(of: $0) }
    }

    /// The last event ID and the server's reconnection time.
    public var resumption: StreamResumption { events.resumption }

    private mutating func value(of event: ServerSentEvent) throws -> Data.Output {
        eventNumber += 1
        var response = template
        response.data = Foundation.Data(event.data.utf8)
        do {
            return try data.parse(response)
        } catch {
            throw StreamRecord.error(error, at: "event \(eventNumber)", parser: "events")
        }
    }
}
