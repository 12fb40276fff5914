#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport on SwiftNIO's AsyncHTTPClient. On Linux it sends requests faster than
/// `URLSessionTransport`, most of all with many in flight, and downloads faster, with flat memory
/// (see "Choosing a transport" in the docs; the figures are in BENCHMARKS.md).
///
///     let service = Service(configuration: configuration, transport: NIOTransport())
///
/// Everything above the transport seam works as with `URLSessionTransport`: handlers, progress,
/// cancel, limits, redirects, content decoding, the idle timeout, downloads with resume, uploads
/// from disk, the cache. The transport owns one `HTTPClient` (its "session") and shuts it down
/// once the service that owns it is gone and its transfers have finished. The client follows no
/// redirects and inflates no bodies: the kit does both, as the transport contract says. Cookies
/// are the service's `CookieJar`'s, above the transport. With proxies in its connection
/// settings, the transport has one more client per proxy (AsyncHTTPClient takes one per client):
/// `https:` requests go through a `CONNECT` tunnel, `http:` requests to an HTTP proxy in absolute
/// form, as curl sends them. On HTTP/2 it reads each connection's `GOAWAY` and stream resets: a
/// request the server did not process fails with `ServerProcessing.notProcessed`, which the kit
/// sends again (see "HTTP Versions and Connection Rotation" in the docs).
public final class NIOTransport: Transport {
    /// The client behind this transport: the one, or the first of those HTTP/2 requests spread
    /// over (``init(configuration:eventLoopGroup:http2ConnectionsPerHost:)``).
    public let client: HTTPClient
    /// The transport reads a body only as fast as its receiver takes it.
    public var pausesReading: Bool { true }
    private let life = NIOTransportLife()
    /// Per-request choices the connection settings make (the TLS configuration for a host).
    private let routing: NIORouting
    /// The clients of the proxies, when the connection settings name any.
    private let proxyClients: NIOProxyClients
    /// The clients HTTP/2 requests spread over, when the transport spreads them.
    private let spread: NIOHTTP2Spread?
    /// The client's TLS configuration and pin check, for the WebSocket connections the
    /// transport makes itself.
    private let webSocketTLS: TLSConfiguration?
    private let pinCheck: (@Sendable (any Channel) -> EventLoopFuture<Void>)?

    /// A transport whose client has AsyncHTTPClient's defaults (TLS with certificate validation,
    /// HTTP/2 where the server offers it) with at most `connectionsPerHost` HTTP/1 connections to
    /// one host at a time (8 by default), and at most `http2ConnectionsPerHost` HTTP/2
    /// connections to one host (1 by default: see ``init(configuration:eventLoopGroup:http2ConnectionsPerHost:)``).
    /// A connection that cannot be made fails the request at once, as with URLSession
    /// (AsyncHTTPClient's default retries until the connect timeout, 10 s for an https URL to a
    /// plain HTTP port); retrying is the request's interceptors' choice.
    public convenience init(connectionsPerHost: Int = 8, http2ConnectionsPerHost: Int = 1) {
        self.init(configuration: Self.defaultConfiguration(connectionsPerHost: connectionsPerHost),
                  routing: NIORouting(), proxy: .none, http2ConnectionsPerHost: http2ConnectionsPerHost)
    }

    /// A transport as ``init(connectionsPerHost:http2ConnectionsPerHost:)`` makes it, that reaches
    /// servers as `connection` says: through its proxy, trusting what its trust settings trust.
    /// Throws `NetworkError.connection` when a setting cannot be used (a PEM file that does not
    /// parse, a key that is not its certificate's). A server that fails a TLS check fails the
    /// request with `NetworkError.connection(.tls(host:check:))`, the check named, as on every
    /// transport.
    public convenience init(connection: ConnectionSettings, connectionsPerHost: Int = 8,
                            http2ConnectionsPerHost: Int = 1) throws(NetworkError) {
        var configuration = Self.defaultConfiguration(connectionsPerHost: connectionsPerHost)
        if connection.httpVersions == .http1Only { configuration.httpVersion = .http1Only }
        try NIOProxyClients.check(connection.proxy)
        var routing = NIORouting()
        try Self.applyTrust(connection.trust, to: &configuration, routing: &routing)
        self.init(configuration: configuration, routing: routing, proxy: connection.proxy,
                  http2ConnectionsPerHost: http2ConnectionsPerHost)
    }

    /// A transport with a client of `configuration` (TLS, proxy, pool, timeouts) on
    /// `eventLoopGroup`. Redirects and decompression are turned off in it: the kit does both; so
    /// is its tracing under the `Observability` trait, whose spans the kit makes on every transport.
    ///
    /// With `http2ConnectionsPerHost` above 1, requests to an `https` host that speaks HTTP/2
    /// spread over up to that many connections when the server's stream limit
    /// (`SETTINGS_MAX_CONCURRENT_STREAMS`) would hold them back: a request goes on the least
    /// loaded connection with room under its limit, and another connection opens only when every
    /// open one is at its limit. AsyncHTTPClient keeps one HTTP/2 connection per host in a
    /// client, so the transport keeps one more client per extra connection, all of
    /// `configuration`, made as they are first needed; ``client`` is the first. While the first
    /// request to a host learns whether it speaks HTTP/2, the others to that host wait for its
    /// stream to open (or its answer, over HTTP/1.1), so that they can spread. Requests through a
    /// proxy are not spread. The default, 1, sends every request through ``client`` at once:
    /// most servers allow 100 streams or more (nginx 128), where one connection is the faster.
    public convenience init(configuration: HTTPClient.Configuration,
                            eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
                            http2ConnectionsPerHost: Int = 1) {
        self.init(configuration: configuration, routing: NIORouting(), proxy: .none,
                  http2ConnectionsPerHost: http2ConnectionsPerHost, eventLoopGroup: eventLoopGroup)
    }

    private init(configuration: HTTPClient.Configuration, routing: NIORouting, proxy: ProxySettings,
                 http2ConnectionsPerHost: Int, eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        #if Observability
        // The kit's spans stand for each request and hop, with its context in the headers;
        // AsyncHTTPClient's own span would trace the hop twice and write its context over the kit's.
        configuration.tracing.tracer = nil
        #endif
        let rotating = NIOConnectionRotation.installed(in: configuration)
        if http2ConnectionsPerHost > 1 {
            let spread = NIOHTTP2Spread(maxConnections: http2ConnectionsPerHost) { [configuration] index, spread in
                let reporting = NIOConnectionRotation.installed(in: configuration) { authority, opened, open in
                    spread.stream(to: authority, connection: index, opened: opened, openStreams: open)
                }
                return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: reporting)
            }
            self.spread = spread
            client = spread.client(0)
        } else {
            spread = nil
            client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: rotating)
        }
        webSocketTLS = configuration.tlsConfiguration
        pinCheck = configuration.http1_1ConnectionDebugInitializer
        self.routing = routing
        proxyClients = proxy.isNone ? NIOProxyClients() : NIOProxyClients(settings: proxy, configuration: rotating) {
            HTTPClient(eventLoopGroup: eventLoopGroup, configuration: $0)
        }
    }

    /// AsyncHTTPClient's defaults with at most `connectionsPerHost` HTTP/1 connections to one host,
    /// and connections that fail at once instead of being retried until the connect timeout.
    private static func defaultConfiguration(connectionsPerHost: Int) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60),
                                             concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    deinit {
        // Reached when no transfer holds the transport any more; the client must be shut down
        // before it is freed.
        if life.shutDownNow() { shutDown() }
    }

    /// Starts sending `request` in a task of its own; its events come from that task, in order.
    public func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask {
        guard life.begin() else {
            events.transportDidComplete(failure: .cancelled)
            return NIOTransportTask(task: nil)
        }
        let url = request.url   // parsed once, for the proxy, the TLS settings and the head
        let route = proxyClients.route(for: url)
        var ticket: NIOHTTP2Spread.Ticket?
        if route == nil, let spread, let host = NIOHTTP2Spread.hostKey(of: url) { ticket = spread.place(host: host) }
        let transfer = NIOTransfer(client: ticket?.client ?? route?.client ?? client, proxy: route, routing: routing,
                                   events: events, ticket: ticket)
        let task = Task {
            let failure = await transfer.run(request, url: url)
            transfer.ticket?.end()
            // Done with the transfer before the pipeline resumes, so its bookkeeping does not run
            // beside the pipeline on another thread.
            self.transferDidEnd()
            events.transportDidComplete(failure: failure)
        }
        return NIOTransportTask(task: task)
    }

    /// Opens a WebSocket on a connection of its own to the request's host, with the client's
    /// TLS configuration, trust settings and pins; see ``Transport/startWebSocket(_:options:events:opened:)``.
    /// A URL that the connection settings send through a proxy goes through its tunnel, `ws:` as
    /// `wss:`: `CONNECT` for an HTTP proxy, a SOCKS5 `CONNECT` (the proxy resolving the name) for
    /// a SOCKS one.
    public func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                               opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask {
        let url = request.url
        let proxy = proxyClients.route(for: url)?.server
        guard life.begin() else {
            events.transportDidComplete(failure: .cancelled)
            return NIOTransportTask(task: nil)
        }
        let opening = NIOWebSocketOpening(
            request: request, options: options, group: client.eventLoopGroup,
            tls: routing.tlsConfiguration(for: url) ?? webSocketTLS ?? .makeClientConfiguration(),
            pinCheck: pinCheck, routing: routing, proxy: proxy)
        return opening.start(events: events, opened: opened) { failure in
            self.transferDidEnd()
            events.transportDidComplete(failure: failure)
        }
    }

    /// Lets running transfers finish, then shuts the client down.
    public func finishAndInvalidate() {
        if life.invalidate() { shutDown() }
    }

    /// Starts no transfer from now on and shuts the clients down, returning once their
    /// connections are closed and their threads let go; while a transfer still runs, it returns at
    /// once and that transfer's end shuts them down.
    public func shutdown() async {
        guard life.invalidate() else { return }
        for client in ownClients() { try? await client.shutdown() }
        for proxied in proxyClients.clients { try? await proxied.shutdown() }
    }

    private func transferDidEnd() {
        if life.end() { shutDown() }
    }

    /// The one shutdown `NIOTransportLife` hands out.
    private func shutDown() {
        for client in ownClients() { client.shutdown { _ in } }
        for proxied in proxyClients.clients { proxied.shutdown { _ in } }
    }

    /// The clients of direct requests, to shut down: ``client``, and those HTTP/2 requests spread
    /// over, handed over once.
    private func ownClients() -> [HTTPClient] {
        spread?.takeClients() ?? [client]
    }
}

/// A running transfer of the NIO transport.
struct NIOTransportTask: TransportTask {
    let task: Task<Void, Never>?

    func cancel() {
        task?.cancel()
    }
}
#endif
