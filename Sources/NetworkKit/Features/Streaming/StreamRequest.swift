import Foundation

/// A request whose answer is a stream: its body is parsed as it arrives, by a ``StreamParser``,
/// into items that reach the item handlers and ``Service/stream(_:)`` one by one, long before
/// the body ends (server-sent events, JSON Lines, log tails).
///
/// ```swift
/// let ticks = StreamRequest(path: "/events")
/// ticks.addItemHandler { _, event in print(event.type, event.data) }
/// ticks.addCompletionHandler { _, result in print(result) }
/// service.start(ticks)                    // or: for try await event in service.stream(ticks) { … }
/// ```
///
/// It takes the same pipeline as every request: interceptors (each connection is adapted again),
/// signing, redirects, event monitors, the idle timeout, cancel by id. It is never answered from
/// the cache, and has no total time limit unless ``AnyRequest/timeLimit`` sets one. Its size
/// limit is the request's own ``AnyRequest/maxResponseBytes`` (per connection); the parsers' line
/// and event limits bound what it holds.
///
/// When ``Service/stream(_:)`` is the one consumer (no item handler was added before the loop
/// began), the loop's task parses the body's chunks as it asks for items; otherwise they are
/// parsed as they arrive and the items queued for the handlers and the loop.
///
/// A slow consumer does not make memory grow: at most ``bufferLimit`` items (or, for a loop that
/// parses, `bufferLimit` × 256 bytes not yet parsed) wait for the consumers. A transport that can
/// pause reading (NIO) stops reading there; one that cannot (URLSession) fails the request with
/// ``NetworkError/streamBufferFull(limit:)``. On
/// Linux, FoundationNetworking also queues what it read ahead of the kit, without a bound of its
/// own: a body that arrives faster than it is parsed grows memory there. Use the NIO transport
/// for a firehose.
///
/// `@unchecked Sendable`, restated from ``AnyRequest`` (whose lock guards its one mutable field):
/// this class adds only `sink`, a `let` whose state is guarded by its own locks.
public final class StreamRequest<Item: Sendable>: AnyRequest, @unchecked Sendable {
    /// Called on the main actor with each item, in order, before the completion handlers.
    public typealias ItemHandler = @MainActor @Sendable (StreamRequest<Item>, Item) -> Void
    /// Called once, on the main actor, when the stream ends: how it ended, or why it failed.
    public typealias CompletionHandler = @MainActor @Sendable (StreamRequest<Item>, Result<StreamSummary, NetworkError>) -> Void
    /// Called on the main actor as bytes move (the body's bytes so far in this connection; no
    /// total is known).
    public typealias ProgressHandler = @MainActor @Sendable (StreamRequest<Item>, TransferProgress) -> Void
    /// Called on the main actor when the state changes.
    public typealias StateHandler = @MainActor @Sendable (StreamRequest<Item>, RequestState) -> Void

    /// The items the consumers can fall behind by (for a loop that parses, 256 bytes an item),
    /// fixed when the request is made.
    public let bufferLimit: Int
    let sink: StreamSink<Item>

    /// Creates a streaming request for `target` (`.url(…)`, or `.path(…)` on the service's base
    /// URL), whose body `parser` turns into items.
    /// `reconnection` says whether it connects again after its body ends or drops.
    package init(
        _ target: RequestTarget,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some StreamParser<Item>,
        reconnection: StreamReconnection = .never,
        bufferLimit: Int = 1024
    ) {
        self.bufferLimit = max(bufferLimit, 1)
        sink = StreamSink(parser: parser, limit: self.bufferLimit)
        var options = RequestOptions(target: target, method: method, parameters: parameters, headerFields: headerFields)
        options.kind = .stream(StreamSetup(sink: sink, reconnection: reconnection))
        super.init(options: options, parser: StreamSummaryParser())
    }

    /// Creates a streaming request for a path on the service's base URL, whose body `parser`
    /// turns into items. `reconnection` says whether it connects again after its body ends or
    /// drops; at most `bufferLimit` items wait for a slow consumer.
    public convenience init(
        path: String,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some StreamParser<Item>,
        reconnection: StreamReconnection = .never,
        bufferLimit: Int = 1024
    ) {
        self.init(.path(path), method: method, parameters: parameters, headerFields: headerFields, parser: parser,
                  reconnection: reconnection, bufferLimit: bufferLimit)
    }

    /// Creates a streaming request for an absolute URL, as ``init(path:method:parameters:headerFields:parser:reconnection:bufferLimit:)`` does for a path.
    public convenience init(
        url: URL,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some StreamParser<Item>,
        reconnection: StreamReconnection = .never,
        bufferLimit: Int = 1024
    ) {
        self.init(.url(url), method: method, parameters: parameters, headerFields: headerFields, parser: parser,
                  reconnection: reconnection, bufferLimit: bufferLimit)
    }

    /// When the stream connects again after its body ends or drops.
    public var reconnection: StreamReconnection {
        get {
            guard case .stream(let stream) = self[option: \.kind] else { return .never }
            return stream.reconnection
        }
        set {
            guard case .stream(var stream) = self[option: \.kind] else { return }
            stream.reconnection = newValue
            self[option: \.kind] = .stream(stream)
        }
    }

    /// Adds a handler called on the main actor with each item, in order; items parsed before
    /// it was added do not reach it. Never called after the completion handlers.
    public func addItemHandler(_ handler: @escaping ItemHandler) {
        // Weak: the request holds its sink, and runs (held by its pipeline) while items arrive.
        sink.addHandler { [weak self] item in
            guard let self else { return }
            handler(self, item)
        }
    }

    /// Adds a handler called once, on the main actor, when the stream ends, after every item
    /// handler call. One added after the end is called with the stored result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        addTypedCompletionHandler(handler)
    }

    /// Adds a handler called on the main actor as body bytes arrive, never after the
    /// completion handlers.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        addTypedProgressHandler(handler)
    }

    /// Adds a handler called on the main actor when the request starts running and when it finishes.
    public func addStateHandler(_ handler: @escaping StateHandler) {
        addTypedStateHandler(handler)
    }
}

/// The result of a streaming request is made by its pipeline, not parsed from a body: this
/// parser stands in for the `AnyRequest` it is built on and is never called with a body.
struct StreamSummaryParser: ResponseParser {
    func parse(_ response: Response) throws -> StreamSummary {
        throw ParseError(parser: "stream", reason: "a stream's result is not parsed from a whole body")
    }

    var isLightweight: Bool { true }
}

/// The typed handlers (see `TypedHandlers`).
extension StreamRequest: TypedHandlers {}
