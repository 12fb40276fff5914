import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A forward proxy on 127.0.0.1 for tests: `CONNECT` tunnels (for `https:` URLs) and
/// absolute-form requests (for `http:` URLs), with Basic authentication when it has credentials.
/// It reaches loopback targets only, sends each forwarded request with `Connection: close`, and
/// logs every request head it receives.
public final class ForwardProxy: Sendable {
    /// One request head the proxy received.
    public struct Entry: Sendable, Equatable {
        /// `CONNECT`, `GET`…
        public var method: String
        /// `host:port` for `CONNECT`, the absolute URL otherwise.
        public var target: String
        /// Whether the credentials were right (true when the proxy asks for none).
        public var authorized: Bool
    }

    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let channel: any Channel
    private let log: NIOLockedValueBox<[Entry]>

    private init(port: Int, channel: any Channel, log: NIOLockedValueBox<[Entry]>) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    /// The request heads received so far, in order.
    public var entries: [Entry] { log.withLockedValue { $0 } }

    /// Binds a free loopback port; with `user` and `password`, every request must carry them as
    /// `Proxy-Authorization: Basic …` or gets `407`.
    public static func start(user: String? = nil, password: String? = nil) async throws -> ForwardProxy {
        let log = NIOLockedValueBox<[Entry]>([])
        let expected = user.map { "Basic " + Data("\($0):\(password ?? "")".utf8).base64EncodedString() }
        let (channel, port) = try await bindLoopback { channel in
            try channel.pipeline.syncOperations.addHandler(ProxyHeadHandler(expected: expected, log: log))
        }
        return ForwardProxy(port: port, channel: channel, log: log)
    }

    /// A server channel on a free loopback port, and the port; `setUp` adds each accepted
    /// connection's handlers, on its event loop.
    static func bindLoopback(_ setUp: @escaping @Sendable (any Channel) throws -> Void) async throws -> (any Channel, Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try setUp(channel) }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port, port > 0 else {
            try? await channel.close()
            throw FixtureServerError.couldNotBind
        }
        return (channel, port)
    }

    /// Stops accepting connections.
    public func stop() {
        channel.close(promise: nil)
    }

    /// Stops accepting connections and returns once the listening socket is closed.
    public func stopAndWait() async {
        try? await channel.close()
    }
}

/// Reads one request head, checks the credentials, then opens the tunnel or forwards the request
/// and relays bytes both ways until either side closes.
private final class ProxyHeadHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private static let headLimit = 64 * 1024
    private let expected: String?
    private let log: NIOLockedValueBox<[ForwardProxy.Entry]>
    private var buffer = ByteBuffer()
    private var handled = false

    init(expected: String?, log: NIOLockedValueBox<[ForwardProxy.Entry]>) {
        self.expected = expected
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        guard !handled else { return }
        guard let head = ProxyRequestHead(buffer) else {
            if buffer.readableBytes > Self.headLimit { context.close(promise: nil) }
            return
        }
        handled = true
        buffer.moveReaderIndex(forwardBy: head.length)
        let authorized = expected == nil || head.field("Proxy-Authorization") == expected
        log.withLockedValue { $0.append(.init(method: head.method, target: head.target, authorized: authorized)) }
        guard authorized else {
            return answer(context, "407 Proxy Authentication Required", extra: "Proxy-Authenticate: Basic realm=\"fixture\"\r\n")
        }
        guard let (host, port) = head.destination, host == "127.0.0.1" || host == "localhost" else {
            return answer(context, "403 Forbidden")
        }
        connect(context: context, host: host, port: port, head: head)
    }

    private func connect(context: ChannelHandlerContext, host: String, port: Int, head: ProxyRequestHead) {
        RelayHandler.connect(from: context.channel, to: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .failure:
                    self.answer(context, "502 Bad Gateway")
                case .success(let outbound):
                    var first = self.buffer
                    if head.method == "CONNECT" {
                        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")),
                                              promise: nil)
                    } else {
                        var forwarded = ByteBuffer(string: head.originForm())
                        forwarded.writeBuffer(&first)
                        first = forwarded
                    }
                    if first.readableBytes > 0 { outbound.writeAndFlush(first, promise: nil) }
                    do {
                        try context.pipeline.syncOperations.addHandler(RelayHandler(peer: outbound), position: .last)
                        context.pipeline.syncOperations.removeHandler(self, promise: nil)
                    } catch {
                        outbound.close(promise: nil)
                        context.close(promise: nil)
                    }
                }
            }
    }

    private func answer(_ context: ChannelHandlerContext, _ status: String, extra: String = "") {
        let text = "HTTP/1.1 \(status)\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Writes what one side reads to the other, and closes the other when this side closes.
final class RelayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// A connection to `host`:`port` on `inbound`'s event loop whose reads go to `inbound`.
    static func connect(from inbound: any Channel, to host: String, port: Int) -> EventLoopFuture<any Channel> {
        ClientBootstrap(group: inbound.eventLoop)
            .channelInitializer { outbound in
                outbound.eventLoop.makeCompletedFuture {
                    try outbound.pipeline.syncOperations.addHandler(RelayHandler(peer: inbound))
                }
            }
            .connect(host: host, port: port)
    }

    private let peer: any Channel

    init(peer: any Channel) {
        self.peer = peer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
