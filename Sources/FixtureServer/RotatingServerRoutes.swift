import Foundation
import NIOCore
import NIOHTTP1

/// The HTTP/1.1 side of ``RotatingServer``.
enum RotatingHTTP1 {
    /// Configures a connection that negotiated `http/1.1` (or nothing): NIOHTTP1's server
    /// pipeline (one request at a time, protocol errors answered with 400) and the route handler,
    /// which closes the connection after ``RotatingServer/Behaviour/closeHTTP1After`` requests.
    static func configure(_ channel: any Channel, shared: RotatingShared) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.configureHTTPServerPipeline(withErrorHandling: true)
            try sync.addHandler(RotatingRouteHandler(shared: shared, role: .http1))
        }
    }
}

/// Answers ``RotatingServer``'s routes from HTTP/1-style request parts: one per HTTP/1.1
/// connection, one per HTTP/2 stream (behind `HTTP2FramePayloadToHTTP1ServerCodec`). A request
/// counts as processed when its end arrives; the answer follows after the answer delay.
final class RotatingRouteHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the handler serves.
    enum Role {
        /// An HTTP/1.1 connection.
        case http1
        /// An HTTP/2 stream, answered.
        case http2
        /// An HTTP/2 stream picked by ``RotatingServer/Behaviour/cancelEvery``: processed, then
        /// reset with CANCEL.
        case http2Cancelled
    }

    /// A request body larger than this closes the connection (or stream) unprocessed.
    private static let bodyLimit = 16 << 20
    private let shared: RotatingShared
    private let role: Role
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// Requests processed on this HTTP/1.1 connection.
    private var requests = 0
    /// Set once the connection is to close after the current answer: what arrives after is dropped.
    private var closing = false

    init(shared: RotatingShared, role: Role) {
        self.shared = shared
        self.role = role
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
        case .body(var bytes):
            guard body.readableBytes + bytes.readableBytes <= Self.bodyLimit else {
                closing = true
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&bytes)
        case .end:
            guard let head else { return }
            self.head = nil
            process(head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client that went away, or (HTTP/2) the stream closing with a reset: nothing to answer.
        context.close(promise: nil)
    }

    /// Counts the request, decides whether the connection closes after it, and answers it (or
    /// resets it) now or after the delay.
    private func process(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        shared.processed(id: RotatingRoute.id(in: head.uri))
        let answer = RotatingRoute.answer(method: head.method, uri: head.uri, body: body)
        body.clear()
        var rotates = false
        if role == .http1 {
            requests += 1
            rotates = shared.behaviour.closeHTTP1After.map { requests >= $0 } ?? false
            closing = rotates || !head.isKeepAlive
        }
        let delay = shared.answerDelay
        guard delay > .zero else {
            respond(answer, to: head, rotates: rotates, context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            guard context.channel.isActive else { return }
            self.respond(answer, to: head, rotates: rotates, context: context)
        }
    }

    private func respond(_ answer: RotatingRoute.Answer, to head: HTTPRequestHead, rotates: Bool,
                         context: ChannelHandlerContext) {
        if role == .http2Cancelled {
            shared.counts.withLockedValue { $0.cancelled += 1 }
            context.close(promise: nil)  // an open HTTP/2 stream channel closes with RST_STREAM CANCEL
            return
        }
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: answer.contentType)
        headers.add(name: "content-length", value: String(answer.body.readableBytes))
        headers.add(name: "x-http-version", value: role == .http1 ? "1.1" : "2")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: answer.status,
                                                              headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        guard closing else { return }
        let shared = self.shared
        written.assumeIsolated().whenComplete { _ in
            if rotates { shared.counts.withLockedValue { $0.http1Closes += 1 } }
            context.close(promise: nil)
        }
    }
}

/// The routes, independent of the protocol.
enum RotatingRoute {
    /// A response's status, content type and body.
    struct Answer {
        var status: HTTPResponseStatus
        var contentType: String
        var body: ByteBuffer
    }

    /// The answer to `method` `uri` with request body `body`.
    static func answer(method: HTTPMethod, uri: String, body: ByteBuffer) -> Answer {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        switch (method, path) {
        case (.GET, "/rotate/hello"):
            let json = #"{"ok":true,"id":""# + EventPlan.escaped(id(in: uri) ?? "") + #""}"#
            return Answer(status: .ok, contentType: "application/json", body: ByteBuffer(string: json))
        case (.POST, "/rotate/echo"):
            return Answer(status: .ok, contentType: "application/octet-stream", body: body)
        default:
            return Answer(status: .notFound, contentType: "text/plain; charset=utf-8", body: ByteBuffer(string: "not found\n"))
        }
    }

    /// The `id` query parameter of `uri`, percent-decoded (`+` as a space); nil without one.
    static func id(in uri: String) -> String? {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        for pair in parts[1].split(separator: "&") {
            let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard field.first == "id" else { continue }
            let raw = field.count == 2 ? String(field[1]).replacingOccurrences(of: "+", with: " ") : ""
            return raw.removingPercentEncoding ?? raw
        }
        return nil
    }
}
