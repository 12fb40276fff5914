import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSOCKS

/// A SOCKS5 proxy on 127.0.0.1 for tests, on swift-nio-extras' server handshake: no
/// authentication, `CONNECT` only, to names or addresses the proxy resolves itself; it relays
/// bytes both ways once the target answered, and logs each target as `host:port`.
public final class SOCKSProxy: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let log: NIOLockedValueBox<[String]>

    private init(port: Int, channel: any Channel, log: NIOLockedValueBox<[String]>) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    /// `socks5h://127.0.0.1:PORT`, as the kit's proxy settings take it.
    public var address: String { "socks5h://127.0.0.1:\(port)" }

    /// The targets clients asked for, in order.
    public var targets: [String] { log.withLockedValue { $0 } }

    /// Binds a free loopback port.
    public static func start() async throws -> SOCKSProxy {
        let log = NIOLockedValueBox<[String]>([])
        let (channel, port) = try await ForwardProxy.bindLoopback { channel in
            let handshake = SOCKSServerHandshakeHandler()
            try channel.pipeline.syncOperations.addHandlers(handshake, SOCKSRequestHandler(handshake: handshake, log: log))
        }
        return SOCKSProxy(port: port, channel: channel, log: log)
    }

    /// Stops accepting connections.
    public func stop() {
        channel.close(promise: nil)
    }
}

/// Answers the greeting (no authentication) and the `CONNECT` request, then leaves the
/// connection to a relay.
private final class SOCKSRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ClientMessage
    typealias OutboundOut = ServerMessage

    private let handshake: SOCKSServerHandshakeHandler
    private let log: NIOLockedValueBox<[String]>

    init(handshake: SOCKSServerHandshakeHandler, log: NIOLockedValueBox<[String]>) {
        self.handshake = handshake
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .greeting(let greeting):
            let method: AuthenticationMethod = greeting.methods.contains(.noneRequired) ? .noneRequired : .noneAcceptable
            context.writeAndFlush(wrapOutboundOut(.selectedAuthenticationMethod(SelectedAuthenticationMethod(method: method))),
                                  promise: nil)
            if method == .noneAcceptable { context.close(promise: nil) }
        case .authenticationData:
            context.close(promise: nil)
        case .request(let request):
            guard request.command == .connect else { return refuse(context, .commandUnsupported) }
            let target: (host: String, port: Int)
            switch request.addressType {
            case .domain(let host, let port): target = (host, port)
            case .address(let address): target = (address.ipAddress ?? "", address.port ?? 0)
            }
            log.withLockedValue { $0.append("\(target.host):\(target.port)") }
            connect(context, host: target.host, port: target.port)
        }
    }

    private func connect(_ context: ChannelHandlerContext, host: String, port: Int) {
        RelayHandler.connect(from: context.channel, to: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .failure:
                    self.refuse(context, .refused)
                case .success(let outbound):
                    let bound = outbound.localAddress.map(SOCKSAddress.address) ?? .domain("127.0.0.1", port: 0)
                    context.writeAndFlush(self.wrapOutboundOut(.response(SOCKSResponse(reply: .succeeded, boundAddress: bound))),
                                          promise: nil)
                    do {
                        // The relay first; then this handler, then the handshake, which hands the
                        // relay what the client sent early.
                        let pipeline = context.pipeline.syncOperations
                        try pipeline.addHandler(RelayHandler(peer: outbound), position: .last)
                        pipeline.removeHandler(self, promise: nil)
                        pipeline.removeHandler(self.handshake, promise: nil)
                    } catch {
                        outbound.close(promise: nil)
                        context.close(promise: nil)
                    }
                }
            }
    }

    private func refuse(_ context: ChannelHandlerContext, _ reply: SOCKSServerReply) {
        let none = SOCKSAddress.domain("0.0.0.0", port: 0)
        context.writeAndFlush(wrapOutboundOut(.response(SOCKSResponse(reply: reply, boundAddress: none))))
            .assumeIsolated()
            .whenComplete { _ in context.close(promise: nil) }
    }

    /// Leaves before the pipeline is torn down: the handshake, removed then, hands what it
    /// buffered to the next handler as bytes, which this one does not read.
    func channelInactive(context: ChannelHandlerContext) {
        context.pipeline.syncOperations.removeHandler(self, promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
