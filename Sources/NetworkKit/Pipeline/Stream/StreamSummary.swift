/// What a streaming request finished with once its stream ended as it should.
public struct StreamSummary: Sendable, Equatable {
    /// How the stream ended.
    public enum Ending: Sendable, Equatable {
        /// The body ended and no reconnection followed (reconnection is off).
        case endOfBody
        /// The server answered `204 No Content`: there is nothing more to stream.
        case noContent
    }

    /// Items delivered, over every connection.
    public var itemCount: Int
    /// Connections whose body began (the first one and each reconnection that was answered).
    public var connectionCount: Int
    /// The stream's last event ID (an event stream's `id:`), "" if none.
    public var lastEventID: String
    /// How it ended.
    public var ending: Ending

    /// Creates a summary from its parts.
    package init(itemCount: Int, connectionCount: Int, lastEventID: String, ending: Ending) {
        self.itemCount = itemCount
        self.connectionCount = connectionCount
        self.lastEventID = lastEventID
        self.ending = ending
    }
}
