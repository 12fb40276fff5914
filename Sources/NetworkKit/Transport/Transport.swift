import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam between the request pipeline and the network: sends one prepared request and
/// streams back what happens to it. A `Service` owns exactly one transport (its "session");
/// `URLSessionTransport` is the default, `NIOTransport` the SwiftNIO one, and `StubTransport`
/// (in NetworkKitTesting) answers from memory.
///
/// ## What a transport does
/// - Sends `request` as it is: its head (method, scheme, authority, path, header fields, in
///   order, repeated fields kept apart where the protocol allows) and its body (bytes, a file's
///   contents streamed from disk, or a ``RequestBodyStream``'s chunks, read with
///   ``RequestBodyStream/makeReader()`` once per send). The scheme is http or https with an
///   authority; the kit checks that before every send.
/// - Reports upload progress, then the response head once, then the body's bytes in order as
///   they arrive, then exactly one completion: nil when the whole response arrived, else why
///   not, as a ``NetworkError`` of four cases: ``NetworkError/cancelled`` after `cancel()`,
///   ``NetworkError/connection(_:)`` when the connection could not be made as the request's
///   settings ask, ``NetworkError/requestBodyStream(_:)`` (or `.cancelled`) as a streamed body's
///   reader threw it, ``NetworkError/transport(_:)`` for any other failure. When the transport
///   can tell whether the server processed a request that failed before its answer, it says so
///   on that failure (``TransportError/serverProcessing``); the kit sends the request again when
///   the server did not. The request fails with that error.
/// - Delivers every answer as the response, redirects included: it follows none itself.
/// - Delivers the body as it came over the wire, unless ``decodesContentEncoding`` says it
///   inflates `Content-Encoding` itself (as URLSession does, and cannot be told not to).
/// - Calls one transfer's events one at a time, never overlapping.
///
/// ## What the kit does above it
/// The same for every transport, so a new one cannot get it wrong: which URLs may be sent
/// (http: and https:), redirects (the request's `RedirectPolicy`: which to follow, how the method
/// and body change, which credentials are dropped), the idle timeout (``OutgoingRequest/timeout``:
/// no byte received or sent for that long fails the attempt with a `.timedOut` failure; a
/// transport may time out on its own too), content decoding (gzip and deflate, inflated under the
/// size and decompression limits as bytes arrive), the size and time limits, retries, the cache,
/// and parsing. The transport conformance suite (`ConformanceTests`) runs these rules against each transport.
public protocol Transport: Sendable {
    /// True when the transport inflates content-encoded bodies itself and delivers them inflated
    /// (the head keeps its `Content-Encoding`); false (the default) when it delivers the bytes as
    /// sent, which the kit then inflates.
    var decodesContentEncoding: Bool { get }

    /// True when the transport stops reading a response body while its receiver is not ready for
    /// more (it awaits ``TransportEvents/transportReadyForMoreBody()`` after each chunk); false
    /// (the default) when it delivers the body as fast as it arrives, and the kit bounds what it
    /// holds for a slow consumer of a stream by failing the request instead.
    var pausesReading: Bool { get }

    /// Starts sending `request` and returns at once; `events` hears what happens to it, as the
    /// protocol's contract says.
    func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask

    /// The same, with the request's ``RequestPriority``, for a transport that can order its
    /// transfers by it (a hint: the kit orders requests itself where the service limits those in
    /// flight). By default the priority is left out and `start(_:events:)` is called.
    func start(_ request: OutgoingRequest, priority: RequestPriority, events: any TransportEvents) -> any TransportTask

    /// Lets running transfers finish and releases the transport's resources. The service calls
    /// this when it is freed.
    func finishAndInvalidate()
    /// Starts no transfer from now on, releases the transport's resources and returns once they
    /// are released (connections closed, threads let go), or, while a transfer still runs, once
    /// their release is due at its end. The service's ``Service/shutdown(gracePeriod:)`` calls it
    /// once no request is left. By default it is ``finishAndInvalidate()``.
    func shutdown() async
    /// Opens a WebSocket (RFC 6455): sends `request`, a `GET` with the request's header fields, as an
    /// upgrade, adding the handshake's own headers (key, version, `Upgrade`, `Connection`). It
    /// reports the answer's head; for a `101` that completes the handshake it hands the
    /// connection to `opened` and then completes with nil; for any other answer it reports the
    /// body and the completion as ``start(_:events:)`` does. By default it completes with
    /// `ConnectionError.unsupported`.
    func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                        opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask
}

extension Transport {
    /// Transports that cannot use a priority leave it out.
    public func start(_ request: OutgoingRequest, priority: RequestPriority, events: any TransportEvents) -> any TransportTask {
        start(request, events: events)
    }

    /// Transports release their resources as `finishAndInvalidate` does unless they can wait for it.
    public func shutdown() async {
        finishAndInvalidate()
    }

    /// Transports deliver bodies as sent unless they say otherwise.
    public var decodesContentEncoding: Bool { false }

    /// Transports cannot pause reading unless they say so.
    public var pausesReading: Bool { false }

    /// Transports open no WebSocket unless they say so: the transfer fails at once with
    /// `ConnectionError.unsupported`.
    public func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                               opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask {
        events.transportDidComplete(failure: .connection(.unsupported(feature: "WebSocket", transport: "\(Self.self)")))
        return FinishedTransportTask()
    }
}

/// The task of a transfer that ended before it began.
struct FinishedTransportTask: TransportTask {
    func cancel() {}
}

extension TransportEvents {
    /// Receivers that never pause a body are always ready.
    public func transportReadyForMoreBody() async {}
}

/// One transfer under way, as a transport hands it back.
public protocol TransportTask: Sendable {
    /// Stops the transfer; its events end with a completion carrying a cancellation error.
    func cancel()
}

/// Receives what happens to one transfer, on the transport's own serial context: calls for one
/// transfer never overlap and arrive in order.
public protocol TransportEvents: AnyObject, Sendable {
    /// Request body bytes sent so far, and how many there are in all when known.
    func transportDidSend(bytes: Int64, of total: Int64?)
    /// The response head: status, headers, and the URL that answered.
    func transportDidReceive(head: ResponseHead)
    /// The next part of the response body (inflated only by a transport that
    /// `decodesContentEncoding`).
    func transportDidReceive(chunk: Data)
    /// Returns once the receiver can take more of the body. A transport that ``Transport/pausesReading``
    /// awaits it after each chunk before it reads on (the kit's backpressure for streams);
    /// it returns at once for bodies that are not streamed.
    func transportReadyForMoreBody() async
    /// The end: nil when the whole response arrived, otherwise why not.
    func transportDidComplete(failure: NetworkError?)
}

