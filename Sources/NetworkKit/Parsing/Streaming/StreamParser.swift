import Foundation

/// Turns a response body into items as its bytes arrive: the streaming counterpart of
/// ``ResponseParser``, for answers that never end or end late (server-sent events, JSON Lines,
/// log tails).
///
/// The pipeline keeps one parser per request, a copy of the one the request was made with. For
/// each body (the first connection, then each reconnection) it calls ``begin(_:)`` with the
/// response so far (head and the service's envelope, no body), ``parse(_:)`` with every chunk in
/// order, and ``finish()`` when the body ended as it should; never after a drop, a cancel or a
/// thrown error. It runs off the main actor: in the task that iterates the request's
/// ``ItemStream`` when that is the request's one consumer, else where the transport delivers.
///
/// A parser must give the same items for the same bytes however they are split into chunks:
/// a line, an event or a multi-byte UTF-8 character may arrive in pieces. It holds what it has
/// not finished within its own limits, and throws a ``ParseError`` (kind `.limit`) past them, so
/// a server cannot make it grow without bound.
///
/// ```swift
/// struct WordParser: StreamParser {
///     private var lines = LineSplitter()
///
///     mutating func parse(_ chunk: Data) throws -> [String] {
///         try lines.split(chunk).flatMap(Self.words)
///     }
///
///     mutating func finish() throws -> [String] {
///         try lines.finish().flatMap(Self.words)
///     }
///
///     private static func words(_ line: Data) -> [String] {
///         String(decoding: line, as: UTF8.self).split(separator: " ").map(String.init)
///     }
/// }
/// ```
public protocol StreamParser<Item>: Sendable {
    /// What the parser produces from the body.
    associatedtype Item: Sendable

    /// A body begins: `response` has its head and the service's envelope, and no body yet. Check
    /// the head (throwing stops the stream for good) and forget anything left unfinished by an
    /// earlier body. What carries over between bodies (an event stream's last event ID) stays.
    mutating func begin(_ response: Response) throws

    /// The next bytes of the body, inflated; returns the items they complete, in order.
    mutating func parse(_ chunk: Data) throws -> [Item]

    /// The body ended as it should; returns the items still held that a complete body makes whole.
    mutating func finish() throws -> [Item]

    /// What a reconnection sends and how long it waits first, as the last body told it (an event
    /// stream's `id:` and `retry:` fields). Empty for parsers of other formats.
    var resumption: StreamResumption { get }
}

extension StreamParser {
    /// Parsers accept any head unless they say otherwise.
    public mutating func begin(_ response: Response) throws {}

    /// Parsers of formats without resumption fields report none.
    public var resumption: StreamResumption { StreamResumption() }
}

/// What a stream's body said about resuming it: the `Last-Event-ID` to send, and how long to
/// wait before reconnecting.
public struct StreamResumption: Sendable, Equatable {
    /// The last event ID, sent as `Last-Event-ID` on a reconnection when not empty.
    public var lastEventID: String
    /// The reconnection time the server asked for (`retry:`), if it did.
    public var retry: Duration?

    /// Creates a resumption; the defaults send no ID and leave the wait to the request's policy.
    public init(lastEventID: String = "", retry: Duration? = nil) {
        self.lastEventID = lastEventID
        self.retry = retry
    }
}
