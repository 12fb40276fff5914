import Foundation

extension StreamRequest where Item == ServerSentEvent {
    /// An event stream of `path` on the service's base URL (server-sent events, as EventSource
    /// reads them): sends `Accept: text/event-stream` and `Cache-Control: no-cache`, parses with
    /// ``ServerSentEventParser``, and reconnects as ``StreamReconnection/eventSource`` says,
    /// sending `Last-Event-ID` (from `lastEventID` until the stream gives one). Lines longer than
    /// `maxLineLength` bytes and events whose data passes `maxEventBytes` fail the stream with a
    /// ``ParseError`` of kind `limit`; at most `bufferLimit` events wait for a slow consumer.
    ///
    /// ```swift
    /// for try await event in service.stream(StreamRequest(path: "/events")) { print(event.data) }
    /// ```
    public convenience init(
        path: String,
        lastEventID: String = "",
        headerFields: HTTPFields = [:],
        reconnection: StreamReconnection = .eventSource,
        maxLineLength: Int64 = 1 << 20,
        maxEventBytes: Int64 = 16 << 20,
        bufferLimit: Int = 1024
    ) {
        self.init(events: .path(path), lastEventID: lastEventID, headerFields: headerFields, reconnection: reconnection,
                  maxLineLength: maxLineLength, maxEventBytes: maxEventBytes, bufferLimit: bufferLimit)
    }

    /// An event stream of an absolute URL, as ``init(path:lastEventID:headerFields:reconnection:maxLineLength:maxEventBytes:bufferLimit:)``
    /// is for a path.
    public convenience init(
        url: URL,
        lastEventID: String = "",
        headerFields: HTTPFields = [:],
        reconnection: StreamReconnection = .eventSource,
        maxLineLength: Int64 = 1 << 20,
        maxEventBytes: Int64 = 16 << 20,
        bufferLimit: Int = 1024
    ) {
        self.init(events: .url(url), lastEventID: lastEventID, headerFields: headerFields, reconnection: reconnection,
                  maxLineLength: maxLineLength, maxEventBytes: maxEventBytes, bufferLimit: bufferLimit)
    }

    /// The event stream of `target`, for the two initializers above and the kit's own modules.
    package convenience init(
        events target: RequestTarget,
        lastEventID: String = "",
        headerFields: HTTPFields = [:],
        reconnection: StreamReconnection = .eventSource,
        maxLineLength: Int64 = 1 << 20,
        maxEventBytes: Int64 = 16 << 20,
        bufferLimit: Int = 1024
    ) {
        var headerFields = headerFields
        if headerFields[.accept] == nil { headerFields[.accept] = "text/event-stream" }
        if headerFields[.cacheControl] == nil { headerFields[.cacheControl] = "no-cache" }
        let parser = ServerSentEventParser(lastEventID: lastEventID, maxLineLength: maxLineLength,
                                           maxEventBytes: maxEventBytes)
        self.init(target, headerFields: headerFields, parser: parser, reconnection: reconnection, bufferLimit: bufferLimit)
    }
}
