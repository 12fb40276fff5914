import Foundation

extension StreamRequest where Item == ServerSentEvent {
    /// An event stream (server-sent events, as EventSource reads them): sends
    /// `Accept: text/event-stream` and `Cache-Control: no-cache`, parses with
    /// ``ServerSentEventParser``, and reconnects as ``StreamReconnection/eventSource`` says,
    /// sending `Last-Event-ID` (from `lastEventID` until the stream gives one).
    public convenience init(
        events target: RequestTarget,
        lastEventID: String = "",
        headers: [String: String] = [:],
        reconnection: StreamReconnection = .eventSource
    ) {
        var headers = headers
        for (name, value) in ["Accept": "text/event-stream", "Cache-Control": "no-cache"]
        where Response.field(name, in: headers) == nil {
            headers[name] = value
        }
        self.init(target, headers: headers, parser: ServerSentEventParser(lastEventID: lastEventID),
                  reconnection: reconnection)
    }
}

