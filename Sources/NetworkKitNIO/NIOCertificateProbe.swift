#if NIO
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Reads the certificate a server presents over a TLS handshake that checks nothing, sends no
/// client certificate and no request, and closes at once: how a failed chain check learns which
/// check failed (see `NIOTLSFailures`). Only made after a handshake failed.
enum NIOCertificateProbe {
    /// The leaf certificate of `host`:`port`; nil when it cannot be read within `timeout`.
    static func leaf(host: String, port: Int, timeout: TimeAmount = .seconds(5)) async -> NIOSSLCertificate? {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let promise = loop.makePromise(of: NIOSSLCertificate?.self)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        let serverName = NIOCertificateNames.ipBytes(host) == nil ? host : nil
        let timer = loop.scheduleTask(in: timeout) { promise.succeed(nil) }
        do {
            let context = try NIOSSLContext(configuration: tls)
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context,
                                                                                           serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(LeafReader(promise: promise))
                    }
                }
                .connect(host: host, port: port)
                .get()
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        } catch {
            promise.succeed(nil)
        }
        let leaf = try? await promise.futureResult.get()
        timer.cancel()
        return leaf ?? nil
    }
}

/// Completes its promise with the server's certificate once the handshake has completed, or with
/// nil when the connection fails or closes first. Lives on its channel's event loop.
private final class LeafReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<NIOSSLCertificate?>

    init(promise: EventLoopPromise<NIOSSLCertificate?>) {
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
            promise.succeed(handler?.peerCertificate)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(nil)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(nil)
        context.fireChannelInactive()
    }
}
#endif
