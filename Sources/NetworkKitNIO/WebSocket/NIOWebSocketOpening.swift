#if NIO
import Foundation
import NetworkKit
import NIOConcurrencyHelpers
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NIOSOCKS
import NIOSSL
import NIOTLS
import NIOWebSocket
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One WebSocket upgrade of the NIO transport: a connection of its own to the request's host
/// (through a `CONNECT` tunnel when the connection settings name an HTTP proxy for it, for `ws:`
/// as for `wss:`; then TLS with the transport's trust settings and pins, checked before anything
/// is sent), the request sent as an HTTP/1.1 upgrade, and the answer reported as the transport
/// contract says.
struct NIOWebSocketOpening: Sendable {
    let request: OutgoingRequest
    let options: WebSocketOptions
    let group: any EventLoopGroup
    /// The TLS configuration for an `https:` URL.
    let tls: TLSConfiguration
    /// The pin check of a new TLS connection, when the trust settings pin keys.
    let pinCheck: (@Sendable (any Channel) -> EventLoopFuture<Void>)?
    let routing: NIORouting
    /// The HTTP proxy to tunnel through, if any.
    let proxy: ProxyServer?

    /// What the upgrade came to.
    enum Upgrade: Sendable {
        /// A `101` that completed the handshake: its head and the connection.
        case opened(HTTPResponseHead, NIOWebSocketConnection)
        /// Any other answer: its head and the start of its body, once it has arrived.
        case refused(EventLoopFuture<NIORefusalReader.Answer>)
    }

    /// The longest part of a refusal's body kept (for the error).
    static let refusalBodyLimit = 64 * 1024

    /// Connects, upgrades and reports to `events`, then calls `done` once with the failure to
    /// complete with, if any. Returns at once: the upgrade runs on the channel's event loop, and
    /// its answer is reported from there.
    func start(events: any TransportEvents, opened: @escaping @Sendable (any WebSocketConnection) -> Void,
               done: @escaping @Sendable (NetworkError?) -> Void) -> NIOWebSocketOpeningTask {
        let task = NIOWebSocketOpeningTask()
        guard let url = request.url, let host = url.host, !host.isEmpty else {
            done(.failed(.badURL, detail: "a WebSocket's URL needs a host"))
            return task
        }
        let secure = url.scheme?.lowercased() == "https"
        let port = url.port ?? (secure ? 443 : 80)
        // Each channel the connection attempts make, with the upgrade its handlers will answer.
        let upgrades = NIOLockedValueBox<[ObjectIdentifier: EventLoopFuture<Upgrade>]>([:])
        ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { made in
                guard task.attach(made) else { return made.eventLoop.makeFailedFuture(CancellationError()) }
                do {
                    let upgrade = try setUp(made, host: host, port: port, secure: secure)
                    upgrades.withLockedValue { $0[ObjectIdentifier(made)] = upgrade }
                    return made.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return made.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: proxy?.host ?? host, port: proxy?.port ?? port)
            .flatMap { channel -> EventLoopFuture<(any Channel, Upgrade)> in
                guard let upgrade = upgrades.withLockedValue({ $0.removeValue(forKey: ObjectIdentifier(channel)) }) else {
                    return channel.eventLoop.makeFailedFuture(ChannelError.inappropriateOperationForState)
                }
                return upgrade.map { (channel, $0) }
            }
            .whenComplete { result in
                switch result {
                case .success((let channel, .opened(let head, let connection))):
                    if let picked = connection.subprotocol, !options.subprotocols.contains(picked) {
                        channel.close(promise: nil)
                        done(.failed(.badServerResponse, detail: "the server picked the subprotocol \(picked), which was not offered"))
                    } else if task.report() {
                        // A 101: the upgrade checked it.
                        events.transportDidReceive(head: ResponseHead(url: url, status: head.status, headers: head.headers, version: head.version)
                            ?? ResponseHead(url: url, status: .switchingProtocols))
                        opened(connection)
                        done(nil)
                    } else {
                        channel.close(promise: nil)
                        done(.cancelled)
                    }
                case .success((let channel, .refused(let answer))):
                    // The answer whole, then the connection closed, then the report.
                    answer.flatMap { answer in channel.close().map { answer }.recover { _ in answer } }.whenComplete { answered in
                        switch answered {
                        case .success((let head, let body)) where task.report():
                            guard let head = ResponseHead(url: url, status: head.status, headers: head.headers, version: head.version) else {
                                done(.unreadableStatus(head.status.code))
                                return
                            }
                            events.transportDidReceive(head: head)
                            if body.readableBytes > 0 { events.transportDidReceive(chunk: Data(sharing: body)) }
                            done(nil)
                        case .success:
                            done(.cancelled)
                        case .failure(let error):
                            channel.close(promise: nil)
                            fail(error, task: task, url: url, done: done)
                        }
                    }
                case .failure(let error):
                    task.closeAll()
                    fail(error, task: task, url: url, done: done)
                }
            }
        return task
    }

    /// Calls `done` with the failure an upgrade that failed with `error` completes with.
    private func fail(_ error: any Error, task: NIOWebSocketOpeningTask, url: URL, done: @escaping @Sendable (NetworkError?) -> Void) {
        if task.isCancelled { return done(.cancelled) }
        if let refusal = error as? WebSocketExtensionError { return done(.failed(.badServerResponse, detail: refusal.reason)) }
        if let proxy, let failure = Self.proxyFailure(for: error, proxy: proxy) { return done(.connection(failure)) }
        Task { [routing, proxy] in
            done(await routing.failure(for: error, url: url, direct: proxy == nil))
        }
    }

    /// The channel's handlers: the tunnel through the proxy, if any, then the rest (`secured`).
    private func setUp(_ channel: any Channel, host: String, port: Int, secure: Bool) throws -> EventLoopFuture<Upgrade> {
        guard let proxy else { return try secured(channel, host: host, port: port, secure: secure) }
        if proxy.kind == .socks5 { return try socks(channel, host: host, port: port, secure: secure) }
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        var headers = HTTPHeaders([("Host", "\(host):\(port)")])
        if let credentials = proxy.credentials {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            headers.add(name: "Proxy-Authorization", value: "Basic \(token)")
        }
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
        let connect = NIOHTTP1ProxyConnectHandler(targetHost: host, targetPort: port, headers: headers,
                                                  deadline: .now() + .seconds(10), promise: tunnel)
        try channel.pipeline.syncOperations.addHandlers([encoder, decoder, connect])
        // The HTTP codec leaves once the tunnel is open (the CONNECT handler removes itself);
        // the callbacks run on the channel's loop.
        let codec = NIOLoopBound((encoder, decoder), eventLoop: channel.eventLoop)
        return tunnel.futureResult
            .flatMap { channel.pipeline.syncOperations.removeHandler(codec.value.1) }
            .flatMap { channel.pipeline.syncOperations.removeHandler(codec.value.0) }
            .flatMapThrowing { try secured(channel, host: host, port: port, secure: secure) }
            .flatMap { $0 }
    }

    /// A SOCKS5 tunnel (swift-nio-extras' client handshake, the proxy resolving `host`), then
    /// the rest (`secured`). A proxy that has not opened the tunnel within 10 seconds fails it.
    private func socks(_ channel: any Channel, host: String, port: Int, secure: Bool) throws -> EventLoopFuture<Upgrade> {
        let tunnel = channel.eventLoop.makePromise(of: Void.self)
        let waiter = NIOEventWaiter.socksTunnel(tunnel)
        try channel.pipeline.syncOperations.addHandlers([SOCKSClientHandler(targetAddress: .domain(host, port: port)), waiter])
        let bound = NIOLoopBound(waiter, eventLoop: channel.eventLoop)
        let deadline = channel.eventLoop.assumeIsolated().scheduleTask(in: .seconds(10)) { bound.value.timeOut() }
        return tunnel.futureResult
            .always { _ in deadline.cancel() }
            .flatMapThrowing { try secured(channel, host: host, port: port, secure: secure) }
            .flatMap { $0 }
    }

    /// What the proxy's part in `error` was, if it had one: a `407`, a refused tunnel, a proxy
    /// that cannot be reached.
    static func proxyFailure(for error: any Error, proxy: ProxyServer) -> ConnectionError? {
        if error is NIOEventWaiter.TimedOut {
            return .proxyFailed(proxy: proxy.description, reason: "it did not open the SOCKS tunnel within 10 seconds")
        }
        if let refusal = error as? SOCKSError.ConnectionFailed {
            return .proxyFailed(proxy: proxy.description, reason: "it could not reach the server (SOCKS reply \(refusal.reply.value))")
        }
        switch error {
        case is SOCKSError.InvalidProtocolVersion, is SOCKSError.InvalidReservedByte, is SOCKSError.InvalidAddressType,
             is SOCKSError.InvalidAuthenticationSelection, is SOCKSError.NoValidAuthenticationMethod,
             is SOCKSError.UnexpectedRead, is SOCKSError.InvalidServerState:
            return .proxyFailed(proxy: proxy.description, reason: "it broke the SOCKS5 protocol (\(error))")
        default: break
        }
        if let error = error as? NIOHTTP1ProxyConnectHandler.Error {
            if error == .proxyAuthenticationRequired() { return .proxyAuthenticationRequired(proxy: proxy.description) }
            if error == .httpProxyHandshakeTimeout() {
                return .proxyFailed(proxy: proxy.description, reason: "it did not answer CONNECT within 10 seconds")
            }
            return .proxyFailed(proxy: proxy.description, reason: "it refused to open a tunnel")
        }
        if case .transport(let failure) = NIOErrors.failure(for: error),
           failure.code == .cannotConnectToHost || failure.code == .cannotFindHost {
            return .proxyFailed(proxy: proxy.description, reason: NetworkError.transport(failure).description)
        }
        return nil
    }

    /// The channel's handlers past any tunnel: TLS (then the pin check) for `https:`, then the
    /// HTTP/1.1 upgrade.
    private func secured(_ channel: any Channel, host: String, port: Int, secure: Bool) throws -> EventLoopFuture<Upgrade> {
        guard secure else { return try upgrade(channel, host: host, port: port, secure: false) }
        var tls = tls
        tls.applicationProtocols = ["http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        try channel.pipeline.syncOperations.addHandler(
            NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host))
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        try channel.pipeline.syncOperations.addHandler(NIOEventWaiter.tlsHandshake(handshake))
        return handshake.futureResult
            .flatMap { pinCheck?(channel) ?? channel.eventLoop.makeSucceededVoidFuture() }
            .flatMapThrowing { try upgrade(channel, host: host, port: port, secure: true) }
            .flatMap { $0 }
    }

    /// Adds the HTTP/1.1 client with the WebSocket upgrader, which sends the upgrade request.
    private func upgrade(_ channel: any Channel, host: String, port: Int, secure: Bool) throws -> EventLoopFuture<Upgrade> {
        var headers = HTTPHeaders()
        for field in request.head.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        if options.compression, !headers.contains(name: "Sec-WebSocket-Extensions") {
            headers.add(name: "Sec-WebSocket-Extensions", value: WebSocketDeflateParameters.offer)
        }
        if !headers.contains(name: "Host") {
            let defaultPort = secure ? 443 : 80
            let name = host.contains(":") ? "[\(host)]" : host
            headers.add(name: "Host", value: port == defaultPort ? name : "\(name):\(port)")
        }
        let target = request.head.path.flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let options = options
        let frameLimit = Int(min(options.maxMessageBytes, Int64(UInt32.max)))
        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(maxFrameSize: frameLimit, enableAutomaticErrorHandling: false) {
            channel, head in
            channel.eventLoop.makeCompletedFuture {
                let deflate = try WebSocketDeflateParameters.accepted(head.headers[canonicalForm: "Sec-WebSocket-Extensions"].joined(separator: ", "),
                                                                      offered: options.compression)
                let inbox = NIOWebSocketInbox(byteLimit: Self.inboxBytes(options)) { channel.read() }
                try channel.pipeline.syncOperations.addHandler(
                    NIOWebSocketHandler(maxMessageBytes: options.maxMessageBytes, pingInterval: options.pingInterval,
                                        deflate: deflate, inbox: inbox))
                let picked = head.headers.first(name: "Sec-WebSocket-Protocol")
                return .opened(head, NIOWebSocketConnection(channel: channel, inbox: inbox, subprotocol: picked))
            }
        }
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
            upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers),
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    let answer = channel.eventLoop.makePromise(of: NIORefusalReader.Answer.self)
                    try channel.pipeline.syncOperations.addHandler(NIORefusalReader(limit: Self.refusalBodyLimit, promise: answer))
                    return .refused(answer.futureResult)
                }
            })
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        // Frames the server sends right behind its 101 belong to the WebSocket.
        pipeline.leftOverBytesStrategy = .forwardBytes
        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
    }

    /// How many bytes of messages a connection holds for a reader that has not taken them: at
    /// least 1 MiB, at most 4 MiB, else the message limit.
    static func inboxBytes(_ options: WebSocketOptions) -> Int {
        Int(min(max(options.maxMessageBytes, 1 << 20), 4 << 20))
    }
}

/// An upgrade under way, as the NIO transport hands it back: cancelling it closes its
/// connection until the upgrade's answer has been reported, and does nothing after.
final class NIOWebSocketOpeningTask: TransportTask {
    private enum State {
        case connecting([any Channel])
        case cancelled
        case reported
    }

    private let state = NIOLockedValueBox(State.connecting([]))

    func cancel() {
        let channels = state.withLockedValue { state -> [any Channel] in
            guard case .connecting(let channels) = state else { return [] }
            state = .cancelled
            return channels
        }
        for channel in channels { channel.close(promise: nil) }
    }

    /// Holds `channel` for a cancel; false when the upgrade was cancelled already.
    func attach(_ channel: any Channel) -> Bool {
        state.withLockedValue { state in
            guard case .connecting(let channels) = state else { return false }
            state = .connecting(channels + [channel])
            return true
        }
    }

    /// Claims the right to report the answer; false when the upgrade was cancelled.
    func report() -> Bool {
        state.withLockedValue { state in
            guard case .connecting = state else { return false }
            state = .reported
            return true
        }
    }

    var isCancelled: Bool {
        state.withLockedValue { if case .cancelled = $0 { true } else { false } }
    }

    /// Closes the channels an upgrade that failed made.
    func closeAll() {
        let channels = state.withLockedValue { state -> [any Channel] in
            guard case .connecting(let channels) = state else { return [] }
            state = .connecting([])
            return channels
        }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// Fulfils its promise at the user event `isAwaited` picks (a TLS handshake completed, a SOCKS
/// tunnel open) and leaves; fails it when the connection ended or failed first, or when told the
/// time is up. Settles its promise once.
final class NIOEventWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    /// The awaited event did not come in time.
    struct TimedOut: Error {}

    private let promise: EventLoopPromise<Void>
    private let isAwaited: (Any) -> Bool
    private var context: ChannelHandlerContext?
    private var settled = false

    init(promise: EventLoopPromise<Void>, until isAwaited: @escaping (Any) -> Bool) {
        self.promise = promise
        self.isAwaited = isAwaited
    }

    /// A waiter for the TLS handshake's end.
    static func tlsHandshake(_ promise: EventLoopPromise<Void>) -> NIOEventWaiter {
        NIOEventWaiter(promise: promise) { event in
            if case .handshakeCompleted? = event as? TLSUserEvent { true } else { false }
        }
    }

    /// A waiter for the SOCKS tunnel's opening.
    static func socksTunnel(_ promise: EventLoopPromise<Void>) -> NIOEventWaiter {
        NIOEventWaiter(promise: promise) { $0 is SOCKSProxyEstablishedEvent }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if isAwaited(event) {
            settle(nil)
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        settle(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        settle(ChannelError.eof)
        context.fireChannelInactive()
    }

    /// Fails the wait and closes the connection, unless the event came already.
    func timeOut() {
        guard !settled else { return }
        settle(TimedOut())
        context?.close(promise: nil)
    }

    private func settle(_ error: (any Error)?) {
        guard !settled else { return }
        settled = true
        if let error { promise.fail(error) } else { promise.succeed() }
    }
}

/// Reads the answer to an upgrade the server refused: its head, and its body up to a limit.
final class NIORefusalReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    /// The head and the start of the body.
    typealias Answer = (HTTPResponseHead, ByteBuffer)
    private let limit: Int
    private let promise: EventLoopPromise<Answer>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(limit: Int, promise: EventLoopPromise<Answer>) {
        self.limit = limit
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            let room = max(0, limit - body.readableBytes)
            if var kept = part.readSlice(length: min(room, part.readableBytes)) { body.writeBuffer(&kept) }
        case .end:
            finish()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if head == nil { promise.fail(error) } else { finish() }
    }

    private func finish() {
        if let head { promise.succeed((head, body)) } else { promise.fail(ChannelError.eof) }
    }
}
#endif
