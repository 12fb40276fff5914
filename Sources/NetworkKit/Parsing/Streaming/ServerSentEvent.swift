/// One event of a server-sent event stream, as the WHATWG rules dispatch it.
public struct ServerSentEvent: Sendable, Equatable, Hashable {
    /// The event's type: its `event:` field, `"message"` when there was none.
    public var type: String
    /// The event's data: its `data:` lines joined with LF.
    public var data: String
    /// The stream's last event ID when the event was dispatched (an `id:` field carries over to
    /// later events and reconnections), `""` if none.
    public var id: String

    /// Creates an event from its parts.
    public init(type: String = "message", data: String, id: String = "") {
        self.type = type
        self.data = data
        self.id = id
    }
}
