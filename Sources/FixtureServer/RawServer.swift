import NIOCore
import NIOPosix
import NIOSSL

/// A plain TCP server on 127.0.0.1 that reads one request head per connection, answers with
/// the canned bytes `RawAnswer` chooses by its path and closes the connection: malformed HTTP
/// that no HTTP framework would send (garbage status lines, lying `Content-Length`s, broken
/// chunking…).
final class RawServer: Sendable {
    /// The port it listens on.
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Binds a free loopback port and returns once it accepts connections; with `tls`, every
    /// connection speaks TLS with that context first.
    static func start(tls: NIOSSLContext? = nil) async throws -> RawServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(RawAnswerHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port, port > 0 else {
            try? await channel.close()
            throw FixtureServerError.couldNotBind
        }
        return RawServer(port: port, channel: channel)
    }

    /// Stops accepting connections (open ones end when their client closes them).
    func stop() {
        channel.close(promise: nil)
    }
}

/// Collects a request head, then writes the canned answer for its path and closes the
/// connection once the bytes are out.
private final class RawAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A request head larger than this gets no answer but a closed connection.
    private static let headLimit = 64 * 1024
    private var head = ByteBuffer()
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }  // a request body, or bytes after the head: ignored
        var bytes = unwrapInboundIn(data)
        head.writeBuffer(&bytes)
        guard let path = RawRequestHead.path(in: head) else {
            if head.readableBytes > Self.headLimit { context.close(promise: nil) }
            return
        }
        answered = true
        let answer = RawAnswer.for(path: path)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer.bytes))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)  // a client that went away mid-answer
    }
}

/// The request line of a complete request head.
enum RawRequestHead {
    /// The path (without its query) of the head in `buffer`, once the head is complete; nil
    /// while it is not.
    static func path(in buffer: ByteBuffer) -> String? {
        let bytes = Array(buffer.readableBytesView)
        guard bytes.firstRange(of: Array("\r\n\r\n".utf8)) != nil else { return nil }
        let requestLine = bytes.prefix { $0 != UInt8(ascii: "\r") }
        let words = requestLine.split(separator: UInt8(ascii: " "))
        guard words.count >= 2 else { return "" }
        return String(decoding: words[1].prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
    }
}
