import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// A WebSocket server on 127.0.0.1 for the WebSocket tests, on SwiftNIO's own server upgrader
/// (optionally behind TLS). What a connection does is chosen by the upgrade's path:
///
/// - `/echo`: every message back as it came (text or binary), pings answered, a close echoed. It
///   picks `chat` among the subprotocols a client offers.
/// - `/headers`: first sends the upgrade request's `Authorization` and `Cookie` headers as one
///   text message (`authorization=…; cookie=…`), then echoes. Its 101 sets the cookie `ws=1`.
/// - `/token`: refuses the upgrade with a `401` unless `Authorization` is `Bearer fresh`; then echoes.
/// - `/fragments`: sends the text "hello" in three fragments with a ping between two of them,
///   then echoes.
/// - `/close?code=N&reason=R`: closes at once with that code and reason.
/// - `/drop`: ends the TCP connection, without a close, after the first message it reads.
/// - `/bad-utf8`: sends a text message that is not UTF-8.
/// - `/masked`: sends a masked text frame (a server must not).
/// - `/wrong-protocol`: picks the subprotocol `other`, whatever the client offered.
/// - `/deaf`: reads everything and answers nothing, pings included.
/// - `/session`: first sends `connection N` (N counts the server's `/session` connections from
///   1), followed by ` (Authorization)` when the upgrade had that header, then echoes; the message `drop` ends the TCP connection without a close, and `restart`
///   closes with 1012 (service restart).
/// - `/flood?count=N&bytes=B`: sends N binary messages of B bytes each as fast as the
///   connection takes them; ``floodStalled`` tells when its writes had to wait for the reader.
///
/// Any other path is refused with a `404`.
public final class WebSocketServer: Sendable {
    /// The port it listens on.
    public let port: Int
    private let channel: any Channel
    private let stalls = NIOLockedValueBox<[CheckedContinuation<Int, Never>]>([])
    private let pings = NIOLockedValueBox<(count: Int, waiting: [(Int, CheckedContinuation<Void, Never>)])>((0, []))
    private let stalledAfter = NIOLockedValueBox<Int?>(nil)
    private let sessions = NIOLockedValueBox(0)
    /// The close codes clients sent (1005 for a close without one), and who waits for them.
    private let closes = NIOLockedValueBox<(codes: [UInt16], waiting: [(Int, CheckedContinuation<[UInt16], Never>)])>(([], []))

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Binds `port` on loopback (a free one when 0) and returns once it accepts connections; with
    /// `tls`, each connection speaks TLS with that context first. A server started on the port of
    /// one stopped before stands for that server restarted.
    public static func start(tls: NIOSSLContext? = nil, port: Int = 0) async throws -> WebSocketServer {
        let box = NIOLockedValueBox<WebSocketServer?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    _ = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
                        configuration: .init(upgradeConfiguration: Self.upgrade { box.withLockedValue { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: port)
            .get()
        guard let port = channel.localAddress?.port, port > 0 else {
            try? await channel.close()
            throw FixtureServerError.couldNotBind
        }
        let server = WebSocketServer(port: port, channel: channel)
        box.withLockedValue { $0 = server }
        return server
    }

    /// A server whose connections speak TLS presenting `identity` (the trust tests' certificates).
    public static func start(presenting identity: TestIdentity) async throws -> WebSocketServer {
        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(identity.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.keyPEM.utf8), format: .pem)))
        return try await start(tls: try NIOSSLContext(configuration: tls))
    }

    /// `ws://127.0.0.1:port` + `path` (`wss:` for a server with TLS is the caller's to say).
    public func url(_ path: String, scheme: String = "ws") -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }

    /// Stops accepting connections (open ones end when their client closes them).
    public func stop() {
        channel.close(promise: nil)
    }

    /// Stops accepting connections and returns once the listening socket is closed, so that its
    /// port can be bound again.
    public func stopAndWait() async {
        try? await channel.close()
    }

    /// Returns once a `/flood` connection's writes waited for its reader, with how many messages
    /// it had written by then.
    public func floodStalled() async -> Int {
        await withCheckedContinuation { continuation in
            let now = stalledAfter.withLockedValue { written -> Int? in
                if let written { return written }
                stalls.withLockedValue { $0.append(continuation) }
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Returns once the server's connections have answered at least `count` pings in all, or one
    /// of its connections ended (so a test that waits for pings on a connection that died fails
    /// instead of waiting).
    public func pingsAnswered(atLeast count: Int) async {
        await withCheckedContinuation { continuation in
            let now = pings.withLockedValue { pings -> Bool in
                if pings.count >= count { return true }
                pings.waiting.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The close codes clients sent, in order (1005 for a close without a code), once there are
    /// at least `count`.
    public func closeCodes(atLeast count: Int) async -> [UInt16] {
        await withCheckedContinuation { continuation in
            let now = closes.withLockedValue { closes -> [UInt16]? in
                if closes.codes.count >= count { return closes.codes }
                closes.waiting.append((count, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    fileprivate func receivedClose(code: UInt16) {
        let ready = closes.withLockedValue { closes -> [(CheckedContinuation<[UInt16], Never>, [UInt16])] in
            closes.codes.append(code)
            let codes = closes.codes
            let ready = closes.waiting.filter { $0.0 <= codes.count }.map { ($0.1, codes) }
            closes.waiting.removeAll { $0.0 <= codes.count }
            return ready
        }
        for (continuation, codes) in ready { continuation.resume(returning: codes) }
    }

    /// Counts a `/session` connection, returning its number (from 1).
    fileprivate func sessionOpened() -> Int {
        sessions.withLockedValue { count in
            count += 1
            return count
        }
    }

    fileprivate func connectionEnded() {
        let waiting = pings.withLockedValue { pings -> [CheckedContinuation<Void, Never>] in
            defer { pings.waiting = [] }
            return pings.waiting.map(\.1)
        }
        for continuation in waiting { continuation.resume() }
    }

    fileprivate func answeredPing() {
        let ready = pings.withLockedValue { pings -> [CheckedContinuation<Void, Never>] in
            pings.count += 1
            let count = pings.count
            let ready = pings.waiting.filter { $0.0 <= count }.map(\.1)
            pings.waiting.removeAll { $0.0 <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    fileprivate func floodDidStall(after written: Int) {
        let waiting = stalledAfter.withLockedValue { stalled -> [CheckedContinuation<Int, Never>] in
            guard stalled == nil else { return [] }
            stalled = written
            return stalls.withLockedValue { all in
                defer { all = [] }
                return all
            }
        }
        for continuation in waiting { continuation.resume(returning: written) }
    }

    /// The upgrade of every connection: which paths upgrade, with which headers, and the handler
    /// that plays each path's part.
    private static func upgrade(_ server: @escaping @Sendable () -> WebSocketServer?) -> NIOTypedHTTPServerUpgradeConfiguration<Void> {
        // The target of an upgrade this connection declined: NIO's upgrade handler does not pass
        // the head of a declined upgrade on, only the parts after it.
        let declined = NIOLockedValueBox("")
        let upgrader = NIOTypedWebSocketServerUpgrader<Void>(
            maxFrameSize: 1 << 26,
            shouldUpgrade: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let headers = Self.upgradeHeaders(for: head)
                    if headers == nil { declined.withLockedValue { $0 = head.uri } }
                    return headers
                }
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketServerHandler(head: head, server: server()))
                }
            })
        return NIOTypedHTTPServerUpgradeConfiguration(upgraders: [upgrader]) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(RefusingHandler(declined: declined))
            }
        }
    }

    /// The headers of the 101, or nil to refuse the upgrade.
    private static func upgradeHeaders(for head: HTTPRequestHead) -> HTTPHeaders? {
        let path = String(head.uri.prefix { $0 != "?" })
        var headers = HTTPHeaders()
        switch path {
        case "/echo", "/fragments", "/close", "/drop", "/bad-utf8", "/masked", "/flood", "/deaf", "/session":
            break
        case "/headers":
            headers.add(name: "Set-Cookie", value: "ws=1; Path=/")
        case "/token":
            guard head.headers.first(name: "Authorization") == "Bearer fresh" else { return nil }
        case "/wrong-protocol":
            headers.add(name: "Sec-WebSocket-Protocol", value: "other")
            return headers
        default:
            return nil
        }
        let offered = head.headers[canonicalForm: "Sec-WebSocket-Protocol"].map(String.init)
        if offered.contains("chat") { headers.add(name: "Sec-WebSocket-Protocol", value: "chat") }
        return headers
    }
}

/// Answers a request that was not upgraded, at its end: `401` for `/token`, `404` otherwise.
private final class RefusingHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let declined: NIOLockedValueBox<String>
    private var target = ""

    init(declined: NIOLockedValueBox<String>) {
        self.declined = declined
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): target = head.uri
        case .body: break
        case .end: answer(context: context, target: target.isEmpty ? declined.withLockedValue { $0 } : target)
        }
    }

    private func answer(context: ChannelHandlerContext, target: String) {
        let isToken = target.hasPrefix("/token")
        let body = isToken ? "a fresh token is needed" : "no WebSocket here"
        var headers = HTTPHeaders([("Content-Length", "\(body.utf8.count)"), ("Connection", "close")])
        if isToken { headers.add(name: "WWW-Authenticate", value: "Bearer") }
        let status: HTTPResponseStatus = isToken ? .unauthorized : .notFound
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// The server's side of one upgraded connection, as its path says.
private final class WebSocketServerHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let path: String
    private let query: [String: String]
    private let head: HTTPRequestHead
    private let server: WebSocketServer?
    private var closing = false
    private var flood: (left: Int, bytes: Int, written: Int)?

    init(head: HTTPRequestHead, server: WebSocketServer?) {
        self.head = head
        self.server = server
        let parts = head.uri.split(separator: "?", maxSplits: 1)
        path = parts.first.map(String.init) ?? "/"
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            query[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        self.query = query
    }

    func handlerAdded(context: ChannelHandlerContext) {
        switch path {
        case "/headers":
            let authorization = head.headers.first(name: "Authorization") ?? ""
            let cookie = head.headers.first(name: "Cookie") ?? ""
            send(.text, ByteBuffer(string: "authorization=\(authorization); cookie=\(cookie)"), context: context)
        case "/fragments":
            send(.text, ByteBuffer(string: "he"), fin: false, context: context)
            send(.ping, ByteBuffer(string: "mid"), context: context)
            send(.continuation, ByteBuffer(string: "l"), fin: false, context: context)
            send(.continuation, ByteBuffer(string: "lo"), context: context)
        case "/close":
            let code = UInt16(query["code"] ?? "") ?? 1000
            close(code: code, reason: query["reason"] ?? "", context: context)
        case "/session":
            let token = head.headers.first(name: "Authorization").map { " (\($0))" } ?? ""
            send(.text, ByteBuffer(string: "connection \(server?.sessionOpened() ?? 0)\(token)"), context: context)
        case "/bad-utf8":
            send(.text, ByteBuffer(bytes: [0xC3, 0x28]), context: context)
        case "/masked":
            let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: [1, 2, 3, 4], data: ByteBuffer(string: "hi"))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        case "/flood":
            flood = (Int(query["count"] ?? "") ?? 16, Int(query["bytes"] ?? "") ?? 65_536, 0)
            writeFlood(context: context)
        default:
            break
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writeFlood(context: context) }
        context.fireChannelWritabilityChanged()
    }

    private func writeFlood(context: ChannelHandlerContext) {
        // A write can change the writability, and so call this again, before it returns: the
        // count is taken before each write.
        while let current = flood, current.left > 0, context.channel.isWritable {
            flood = (current.left - 1, current.bytes, current.written + 1)
            send(.binary, ByteBuffer(repeating: UInt8(truncatingIfNeeded: current.written), count: current.bytes), context: context)
        }
        if let flood, flood.left > 0 { server?.floodDidStall(after: flood.written) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if path == "/deaf" { return }
        switch frame.opcode {
        case .text, .binary, .continuation:
            if path == "/drop" || (path == "/session" && frame.unmaskedData == ByteBuffer(string: "drop")) {
                context.close(promise: nil)
                return
            }
            if path == "/session", frame.unmaskedData == ByteBuffer(string: "restart") {
                close(code: 1012, reason: "restarting", context: context)
                return
            }
            guard !closing else { return }
            send(frame.opcode, frame.unmaskedData, fin: frame.fin, context: context)
        case .ping:
            send(.pong, frame.unmaskedData, context: context)
            server?.answeredPing()
        case .connectionClose:
            var code = frame.unmaskedData
            server?.receivedClose(code: code.readInteger(as: UInt16.self) ?? 1005)
            if closing {
                context.close(promise: nil)
            } else {
                closing = true
                var payload = frame.unmaskedData
                let channel = context.channel
                let echo = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload.readSlice(length: min(2, payload.readableBytes)) ?? ByteBuffer())
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        server?.connectionEnded()
        context.fireChannelInactive()
    }

    private func send(_ opcode: WebSocketOpcode, _ data: ByteBuffer, fin: Bool = true, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: fin, opcode: opcode, data: data)), promise: nil)
    }

    private func close(code: UInt16, reason: String, context: ChannelHandlerContext) {
        closing = true
        var payload = ByteBuffer()
        payload.writeInteger(code)
        payload.writeString(reason)
        send(.connectionClose, payload, context: context)
    }
}
