import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1 that speaks HTTP/2 and HTTP/1.1 (chosen by ALPN, `h2` preferred)
/// and rotates its connections the way real servers do: GOAWAY after so many streams (nginx's
/// `keepalive_requests`, hypercorn's `keep_alive_max_requests`), refused and cancelled streams,
/// and HTTP/1.1 connections closed after so many requests without `Connection: close`. It is for
/// tests of a client that must lose no request and send none twice when that happens; ``counts``
/// says what the server processed.
///
/// Routes, the same over both protocols, every answer carrying `x-http-version: 2` or `1.1`:
/// - `GET /rotate/hello?id=X`: 200, `application/json`, `{"ok":true,"id":"X"}`.
/// - `POST /rotate/echo?id=X`: 200, `application/octet-stream`, the request's body.
/// - anything else: 404.
///
/// ```swift
/// let certificates = try TestCertificates.make()
/// defer { certificates.remove() }
/// let server = try await RotatingServer.start(presenting: certificates.server,
///                                             behaviour: .init(goAwayAfterStreams: 3))
/// // … requests to server.url("/rotate/hello?id=1"), trusting certificates.ca …
/// await server.stop()
/// ```
public final class RotatingServer: Sendable {
    /// How the server rotates connections and resets streams. nil turns a behaviour off; a
    /// count below 1 acts as 1 for ``goAwayAfterStreams`` and ``closeHTTP1After`` and as nil for
    /// ``refuseEvery`` and ``cancelEvery``.
    public struct Behaviour: Sendable {
        /// HTTP/2: when the Nth stream of a connection opens, the server sends GOAWAY (NO_ERROR)
        /// whose last stream ID is that stream's ID. It answers the streams up to it (as the
        /// other behaviours say), never processes a stream above it (it neither answers nor
        /// resets those: the client learns from the GOAWAY that they were not processed), and
        /// closes the connection (TLS close_notify) once every stream up to it is closed.
        /// nil: never.
        public var goAwayAfterStreams: Int?
        /// HTTP/2: every kth stream the server opens (counted from 1 over all its connections,
        /// streams above a GOAWAY left out) is reset with RST_STREAM REFUSED_STREAM before its
        /// handler runs: it is not processed. nil: never.
        public var refuseEvery: Int?
        /// HTTP/2: every kth stream (the same count as ``refuseEvery``'s; a stream both would
        /// pick is refused) is processed, then reset with RST_STREAM CANCEL instead of answered.
        /// nil: never.
        public var cancelEvery: Int?
        /// HTTP/1.1: the Nth request on a connection is answered (keep-alive, no
        /// `Connection: close`), then the connection is closed; a request the client sent after
        /// it on that connection is not processed. nil: never.
        public var closeHTTP1After: Int?
        /// How long the server waits between a request's end and its answer (or its CANCEL
        /// reset), to keep many requests in flight.
        public var answerDelay: Duration
        /// HTTP/2: the `SETTINGS_MAX_CONCURRENT_STREAMS` each connection announces (NIOHTTP2
        /// refuses a stream over it). nil: NIOHTTP2's default, 100.
        public var maxConcurrentStreams: Int?

        /// A behaviour; the defaults rotate nothing and answer at once.
        public init(goAwayAfterStreams: Int? = nil, refuseEvery: Int? = nil, cancelEvery: Int? = nil,
                    closeHTTP1After: Int? = nil, answerDelay: Duration = .zero, maxConcurrentStreams: Int? = nil) {
            self.maxConcurrentStreams = maxConcurrentStreams
            self.goAwayAfterStreams = goAwayAfterStreams
            self.refuseEvery = refuseEvery
            self.cancelEvery = cancelEvery
            self.closeHTTP1After = closeHTTP1After
            self.answerDelay = answerDelay
        }
    }

    /// What the server has done so far.
    public struct Counts: Sendable, Equatable {
        /// TCP connections accepted.
        public var connections: Int
        /// Requests whose handler ran (any route, either protocol), cancelled ones included;
        /// refused streams and streams above a GOAWAY's last stream ID are not.
        public var processed: Int
        /// HTTP/2 streams reset with REFUSED_STREAM.
        public var refused: Int
        /// HTTP/2 streams processed and then reset with CANCEL.
        public var cancelled: Int
        /// GOAWAY frames sent (one per rotated HTTP/2 connection).
        public var goAways: Int
        /// HTTP/1.1 connections closed after ``Behaviour/closeHTTP1After`` requests.
        public var http1Closes: Int
        /// How many times a request with each value of the `id` query parameter was processed
        /// (requests without one are counted in ``processed`` only).
        public var processedIDs: [String: Int]
        /// The most HTTP/2 streams open at once, over all connections (streams above a GOAWAY's
        /// last stream ID left out).
        public var peakOpenStreams: Int
        /// The most HTTP/2 streams open at once on one connection.
        public var peakOpenStreamsOnAConnection: Int
        /// HTTP/2 streams open now, over all connections.
        var openStreams = 0

        /// Counts with the given values (all zero by default).
        public init(connections: Int = 0, processed: Int = 0, refused: Int = 0, cancelled: Int = 0,
                    goAways: Int = 0, http1Closes: Int = 0, processedIDs: [String: Int] = [:],
                    peakOpenStreams: Int = 0, peakOpenStreamsOnAConnection: Int = 0) {
            self.peakOpenStreams = peakOpenStreams
            self.peakOpenStreamsOnAConnection = peakOpenStreamsOnAConnection
            self.connections = connections
            self.processed = processed
            self.refused = refused
            self.cancelled = cancelled
            self.goAways = goAways
            self.http1Closes = http1Closes
            self.processedIDs = processedIDs
        }
    }

    /// The port the server listens on.
    public let port: Int
    /// `https`, or `http` for a server started without an identity.
    public let scheme: String
    private let listener: any Channel
    private let shared: RotatingShared

    private init(port: Int, scheme: String, listener: any Channel, shared: RotatingShared) {
        self.port = port
        self.scheme = scheme
        self.listener = listener
        self.shared = shared
    }

    /// A consistent snapshot of the counters.
    public var counts: Counts { shared.counts.withLockedValue { $0 } }

    /// Starts a server presenting `identity` (the leaf alone, not a chain; clients trust the CA
    /// that signed it) and returns once it accepts connections.
    public static func start(presenting identity: TestIdentity, behaviour: Behaviour = .init()) async throws
        -> RotatingServer {
        try await start(tls: tlsContext(presenting: identity), behaviour: behaviour)
    }

    /// Starts a server that speaks plain HTTP/1.1, without TLS (for clients that cannot trust a
    /// test authority, such as URLSession on Linux), and returns once it accepts connections.
    public static func startPlain(behaviour: Behaviour = .init()) async throws -> RotatingServer {
        try await start(tls: nil, behaviour: behaviour)
    }

    /// A TLS context presenting `identity` and offering HTTP/2 and HTTP/1.1 by ALPN.
    private static func tlsContext(presenting identity: TestIdentity) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.keyPEM.utf8), format: .pem))
        )
        tls.applicationProtocols = ["h2", "http/1.1"]
        // A client that never answers our close_notify holds a closing connection this long at most.
        tls.shutdownTimeout = .seconds(1)
        return try NIOSSLContext(configuration: tls)
    }

    private static func start(tls context: NIOSSLContext?, behaviour: Behaviour) async throws -> RotatingServer {
        let shared = RotatingShared(behaviour: behaviour)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                shared.accepted(channel)
                guard let context else { return RotatingHTTP1.configure(channel, shared: shared) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { RotatingHTTP2.configure($0, shared: shared) },
                        http1ChannelConfigurator: { RotatingHTTP1.configure($0, shared: shared) }
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = listener.localAddress?.port, port > 0 else {
            try? await listener.close()
            throw FixtureServerError.couldNotBind
        }
        return RotatingServer(port: port, scheme: context == nil ? "http" : "https", listener: listener, shared: shared)
    }

    /// Closes the listening socket and every open connection (TLS close_notify, at most a second
    /// waiting for the client's); returns when all of them are closed.
    public func stop() async {
        listener.close(promise: nil)
        let open = shared.stopAccepting()
        for channel in open { channel.close(promise: nil) }
        // One wait for all of them: a task awaiting SwiftNIO futures one after another, each
        // completed on an event loop, is what ThreadSanitizer reported as a race between the
        // continuations (a report inside the concurrency runtime, not on this code's state).
        let closed = [listener.closeFuture] + open.map(\.closeFuture)
        try? await EventLoopFuture.andAllComplete(closed, on: listener.eventLoop).get()
    }

    /// `SCHEME://127.0.0.1:PORT` followed by `path` (which starts with `/`).
    public func url(_ path: String) -> String {
        "\(scheme)://127.0.0.1:\(port)\(path)"
    }
}

/// What all connections of one server share: the behaviour, the counters, the stream count that
/// ``RotatingServer/Behaviour/refuseEvery`` and ``RotatingServer/Behaviour/cancelEvery`` go by,
/// and the open connections.
final class RotatingShared: Sendable {
    /// The open connections, and whether the server stopped (then new ones are closed at once).
    private struct Connections {
        var open: [ObjectIdentifier: any Channel] = [:]
        var stopped = false
    }

    let behaviour: RotatingServer.Behaviour
    let counts = NIOLockedValueBox(RotatingServer.Counts())
    private let streams = NIOLockedValueBox(0)
    private let connections = NIOLockedValueBox(Connections())

    init(behaviour: RotatingServer.Behaviour) {
        self.behaviour = behaviour
    }

    /// Counts and registers a new connection, which unregisters itself when it closes; closes it
    /// when the server has stopped.
    func accepted(_ channel: any Channel) {
        counts.withLockedValue { $0.connections += 1 }
        let key = ObjectIdentifier(channel)
        let stopped = connections.withLockedValue { connections in
            if !connections.stopped { connections.open[key] = channel }
            return connections.stopped
        }
        if stopped {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [connections] _ in
            connections.withLockedValue { _ = $0.open.removeValue(forKey: key) }
        }
    }

    /// Marks the server stopped and returns the connections open now.
    func stopAccepting() -> [any Channel] {
        connections.withLockedValue { connections in
            connections.stopped = true
            return Array(connections.open.values)
        }
    }

    /// The next HTTP/2 stream's number, counted over the whole server from 1.
    func nextStreamNumber() -> Int {
        streams.withLockedValue { count in
            count += 1
            return count
        }
    }

    /// Counts a processed request whose `id` query parameter is `id`.
    func processed(id: String?) {
        counts.withLockedValue { counts in
            counts.processed += 1
            if let id { counts.processedIDs[id, default: 0] += 1 }
        }
    }

    /// ``RotatingServer/Behaviour/answerDelay`` as the event loop counts time.
    var answerDelay: TimeAmount {
        let (seconds, attoseconds) = behaviour.answerDelay.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
