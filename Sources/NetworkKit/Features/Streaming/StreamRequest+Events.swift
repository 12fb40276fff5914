import Foundation

extension StreamRequest where Item == ServerSentEvent {
    /// An event stream (server-sent events, as EventSource reads them): sends
    /// `Accept: text/event-stream` and `Cache-Control: no-cache`, parses with
    /// ``ServerSentEventParser``, and reconnects as ``StreamReconnection/eventSource`` says,
    /// sending `Last-Event-ID` (from `lastEventID` until the stream gives one). Lines longer than
    /// `maxLineLength` bytes and events whose data passes `maxEventBytes` fail the stream with a
    /// ``ParseError`` of kind `limit`; at most `bufferLimit` events wait for a slow consumer.
    public convenience init(
        events target: RequestTarget,
        lastEventID: String = "",
        headers: [String: String] = [:],
        reconnection: StreamReconnection = .eventSource,
        maxLineLength: Int = 1 << 20,
        maxEventBytes: Int = 16 << 20,
        bufferLimit: Int = 1024
    ) {
        var headers = headers
        for (name, value) in ["Accept": "text/event-stream", "Cache-Control": "no-cache"]
        where HeaderFields.value(name, in: headers) == nil {
            headers[name] = value
        }
        let parser = ServerSentEventParser(lastEventID: lastEventID, maxLineLength: maxLineLength,
                                           maxEventBytes: maxEventBytes)
        self.init(target, headers: headers, parser: parser, reconnection: reconnection, bufferLimit: bufferLimit)
    }
}

