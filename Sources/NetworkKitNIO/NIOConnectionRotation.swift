#if NIO
import AsyncHTTPClient
import NetworkKit
import NIOCore
import NIOHTTP2

/// How the NIO transport tells an HTTP/2 request the server never processed from one it may have:
/// RFC 9113 §6.8 and §8.7. A connection's `ConnectionWatcher` keeps the last stream ID of the
/// `GOAWAY`s it receives; a stream's `StreamFateHandler`, first in its pipeline, turns the
/// stream's closing error into an ``HTTP2StreamFailure`` that says which it was, before
/// AsyncHTTPClient fails the request with it. Both go in through AsyncHTTPClient's channel
/// initializers, after any the client's configuration already has. The connection's watcher
/// also reports, when asked, each stream that opens or closes, for the transport's
/// ``NIOHTTP2Spread``.
enum NIOConnectionRotation {
    /// What a connection reports as a stream opens (`opened`) or closes: the connection's
    /// `:authority` and its streams open then (with the new one; before the closed one closed).
    /// Called on the connection's event loop.
    typealias StreamReport = @Sendable (_ authority: String, _ opened: Bool, _ openStreams: Int) -> Void

    /// `configuration` with the watchers installed on every HTTP/2 connection and stream; each
    /// connection reports its streams to `report` when one is given.
    static func installed(in configuration: HTTPClient.Configuration,
                          report: StreamReport? = nil) -> HTTPClient.Configuration {
        var configuration = configuration
        let connection = configuration.http2ConnectionDebugInitializer
        configuration.http2ConnectionDebugInitializer = { channel in
            let earlier = connection?(channel) ?? channel.eventLoop.makeSucceededVoidFuture()
            return earlier.flatMap {
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let frames = try sync.handler(type: NIOHTTP2Handler.self)
                    try sync.addHandler(ConnectionWatcher(report: report), position: .after(frames))
                }
            }
        }
        let stream = configuration.http2StreamChannelDebugInitializer
        configuration.http2StreamChannelDebugInitializer = { channel in
            let earlier = stream?(channel) ?? channel.eventLoop.makeSucceededVoidFuture()
            return earlier.flatMap {
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(StreamFateHandler(), position: .first)
                }
            }
        }
        return configuration
    }
}

/// Why an HTTP/2 stream closed before its answer ended, and whether the server processed the
/// request on it.
struct HTTP2StreamFailure: Error, CustomStringConvertible {
    /// The stream.
    let streamID: HTTP2StreamID
    /// The code the stream closed with.
    let errorCode: NIOHTTP2.HTTP2ErrorCode
    /// The last stream ID of the `GOAWAY` the stream's connection received, if it received one.
    let goAwayLastStreamID: HTTP2StreamID?

    /// Whether the server processed the request: not on a refused stream or one above a
    /// `GOAWAY`'s last stream ID; perhaps after any other reset.
    var processing: ServerProcessing {
        if errorCode == .refusedStream { return .notProcessed }
        if let goAwayLastStreamID, streamID > goAwayLastStreamID { return .notProcessed }
        return .mayHaveProcessed
    }

    var description: String {
        if errorCode == .refusedStream { return "the server refused HTTP/2 stream \(Int(streamID)) (REFUSED_STREAM)" }
        if let goAwayLastStreamID, streamID > goAwayLastStreamID {
            return "the server closed its HTTP/2 connection (GOAWAY, last stream \(Int(goAwayLastStreamID))) "
                + "before stream \(Int(streamID))"
        }
        return "the server reset HTTP/2 stream \(Int(streamID)) (\(Self.name(of: errorCode)))"
    }
}

extension HTTP2StreamFailure {
    /// RFC 9113's name of an error code (§7), or its number.
    static func name(of code: NIOHTTP2.HTTP2ErrorCode) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
                     "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
                     "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        let number = Int(code.networkCode)
        return names.indices.contains(number) ? names[number] : "error code \(number)"
    }
}

/// On an HTTP/2 connection's pipeline, after NIOHTTP2's handler: keeps the lowest last stream ID
/// of the `GOAWAY` frames received, and counts the streams open. NIOHTTP2 passes a `GOAWAY` on
/// before it closes the streams above that ID, so a stream's handler finds the ID here when its
/// closing error arrives. With a report, it tells it each stream that opens or closes.
final class ConnectionWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// The lowest last stream ID of the `GOAWAY`s received so far; nil before the first.
    private(set) var lastStreamID: HTTP2StreamID?
    /// The `:authority` of the connection's streams (AsyncHTTPClient sends one host's requests
    /// on a connection), set by the first stream's handler.
    var authority: String?
    /// Streams open now.
    private var openStreams = 0
    private let report: NIOConnectionRotation.StreamReport?

    init(report: NIOConnectionRotation.StreamReport?) {
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .goAway(let last, _, _) = unwrapInboundIn(data).payload {
            lastStreamID = min(lastStreamID ?? last, last)
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is NIOHTTP2StreamCreatedEvent:
            openStreams += 1
            if let report, let authority { report(authority, true, openStreams) }
        case is StreamClosedEvent:
            if let report, let authority { report(authority, false, openStreams) }
            openStreams = max(0, openStreams - 1)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// First on an HTTP/2 stream's pipeline: passes the error a stream closes with on as an
/// ``HTTP2StreamFailure``, which knows the connection's `GOAWAY`, and everything else as it is.
/// It gives the connection's watcher the `:authority` of the first request's head going out.
final class StreamFateHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .headers(let headers) = unwrapOutboundIn(data),
           let watcher = try? context.channel.parent?.pipeline.syncOperations.handler(type: ConnectionWatcher.self),
           watcher.authority == nil {
            watcher.authority = headers.headers.first(name: ":authority")
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let closed = error as? NIOHTTP2Errors.StreamClosed else { return context.fireErrorCaught(error) }
        // The stream's parent is its connection, on the same event loop.
        let watcher = try? context.channel.parent?.pipeline.syncOperations.handler(type: ConnectionWatcher.self)
        context.fireErrorCaught(HTTP2StreamFailure(streamID: closed.streamID, errorCode: closed.errorCode,
                                                   goAwayLastStreamID: watcher?.lastStreamID))
    }
}
#endif
