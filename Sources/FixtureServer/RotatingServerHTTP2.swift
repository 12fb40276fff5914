import NIOCore
import NIOHTTP1
import NIOHTTP2

/// The HTTP/2 side of ``RotatingServer``: a connection's streams, its GOAWAY, refused streams.
///
/// The GOAWAY is written as bytes beneath NIOHTTP2 (``GoAwayWriter``), not as an `HTTP2Frame`
/// through it. NIOHTTP2 1.46, once it has sent a GOAWAY itself, ignores the HEADERS of a stream
/// above its last stream ID but takes that stream's DATA for a connection error (`NoSuchStream`):
/// it then stops parsing what is left of that read, so a request body in flight above the GOAWAY
/// could stall the streams below it, which must still be answered. Unaware of the GOAWAY, NIOHTTP2
/// opens the streams above as usual, and the stream initializer gives them a handler that
/// drops them unanswered, as nginx and hypercorn do.
enum RotatingHTTP2 {
    /// One connection's streams. Only touched on the connection's event loop (through
    /// `NIOLoopBound`, which checks that).
    private final class Streams {
        /// Writes the GOAWAY.
        let goAwayWriter: GoAwayWriter
        /// Streams opened so far, up to the GOAWAY's last stream ID.
        var opened = 0
        /// Those not yet closed.
        var open = 0
        /// The last stream ID of the GOAWAY sent, if one was: the connection closes once no
        /// stream up to it is open, and streams above it are dropped.
        var goAwayLastStreamID: HTTP2StreamID?

        init(goAwayWriter: GoAwayWriter) {
            self.goAwayWriter = goAwayWriter
        }
    }

    /// Configures a connection that negotiated `h2`: the GOAWAY writer, NIOHTTP2 with an inline
    /// multiplexer whose stream initializer applies the behaviour, and a handler that closes the
    /// connection on a TLS or socket error. Runs on the connection's event loop.
    static func configure(_ connection: any Channel, shared: RotatingShared) -> EventLoopFuture<Void> {
        connection.eventLoop.makeCompletedFuture {
            let writer = GoAwayWriter()
            let streams = NIOLoopBound(Streams(goAwayWriter: writer), eventLoop: connection.eventLoop)
            let sync = connection.pipeline.syncOperations
            try sync.addHandler(writer)
            var configuration = NIOHTTP2Handler.ConnectionConfiguration()
            if let limit = shared.behaviour.maxConcurrentStreams {
                configuration.initialSettings.removeAll { $0.parameter == .maxConcurrentStreams }
                configuration.initialSettings.append(HTTP2Setting(parameter: .maxConcurrentStreams, value: limit))
            }
            _ = try sync.configureHTTP2Pipeline(mode: .server, connectionConfiguration: configuration,
                                                streamConfiguration: .init()) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try open(stream, on: connection, streams: streams, shared: shared)
                }
            }
            try sync.addHandler(ConnectionErrorCloser())
        }
    }

    /// Sets up a stream the client opened: drops it when it is above the GOAWAY already sent;
    /// otherwise counts it, sends the GOAWAY when it is the connection's Nth, then refuses it or
    /// gives it the route handler (which cancels it when it is picked). Runs on the connection's
    /// event loop, when NIOHTTP2 creates the stream for its HEADERS, so in the order of stream IDs.
    private static func open(_ stream: any Channel, on connection: any Channel, streams: NIOLoopBound<Streams>,
                             shared: RotatingShared) throws {
        let state = streams.value
        let id = try stream.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID)
        if let last = state.goAwayLastStreamID, let id, id > last {
            try stream.pipeline.syncOperations.addHandler(StreamDropper())
            return
        }
        state.opened += 1
        state.open += 1
        let openOnConnection = state.open
        shared.counts.withLockedValue { counts in
            counts.openStreams += 1
            counts.peakOpenStreams = max(counts.peakOpenStreams, counts.openStreams)
            counts.peakOpenStreamsOnAConnection = max(counts.peakOpenStreamsOnAConnection, openOnConnection)
        }
        stream.closeFuture.whenComplete { _ in
            shared.counts.withLockedValue { $0.openStreams -= 1 }
            let state = streams.value
            state.open -= 1
            // Every stream up to the GOAWAY's last stream ID is closed: what was written goes out
            // (flush), then the connection closes with a TLS close_notify.
            if state.goAwayLastStreamID != nil && state.open == 0 {
                connection.flush()
                connection.close(promise: nil)
            }
        }
        if let limit = shared.behaviour.goAwayAfterStreams, state.goAwayLastStreamID == nil, state.opened >= limit,
           let id {
            state.goAwayLastStreamID = id
            shared.counts.withLockedValue { $0.goAways += 1 }
            state.goAwayWriter.send(lastStreamID: id)
        }
        let number = shared.nextStreamNumber()
        if picks(shared.behaviour.refuseEvery, number) {
            try stream.pipeline.syncOperations.addHandler(StreamRefuser(shared: shared))
            return
        }
        let role: RotatingRouteHandler.Role = picks(shared.behaviour.cancelEvery, number) ? .http2Cancelled : .http2
        try stream.pipeline.syncOperations.addHandlers(
            HTTP2FramePayloadToHTTP1ServerCodec(),
            RotatingRouteHandler(shared: shared, role: role)
        )
    }

    /// Whether "every kth" picks the stream numbered `number` (k of 0 or less picks none).
    private static func picks(_ every: Int?, _ number: Int) -> Bool {
        guard let every, every > 0 else { return false }
        return number % every == 0
    }
}

/// Sits between TLS and NIOHTTP2 and writes a GOAWAY (NO_ERROR) frame's bytes itself, so that
/// NIOHTTP2's state machine does not learn of it (see ``RotatingHTTP2``); everything NIOHTTP2
/// writes passes through unchanged.
private final class GoAwayWriter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes and flushes GOAWAY(`lastStreamID`, NO_ERROR) after what NIOHTTP2 has flushed so far.
    func send(lastStreamID: HTTP2StreamID) {
        guard let context else { return }
        var frame = context.channel.allocator.buffer(capacity: 17)
        frame.writeInteger(UInt32(8) << 8 | 0x07)  // payload length 8 (24 bits), type GOAWAY
        frame.writeInteger(UInt8(0))  // flags
        frame.writeInteger(UInt32(0))  // stream 0: the connection
        frame.writeInteger(UInt32(Int32(lastStreamID)))  // reserved bit clear
        frame.writeInteger(UInt32(0))  // NO_ERROR
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }
}

/// Takes a stream above the GOAWAY's last stream ID and drops what the client sends on it,
/// without answering or resetting it; it ends when the connection closes.
private final class StreamDropper: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

/// Resets its stream with REFUSED_STREAM when the stream's first frame (its HEADERS) arrives,
/// before anything processes it; the stream then closes.
private final class StreamRefuser: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let shared: RotatingShared
    private var refused = false

    init(shared: RotatingShared) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }  // the rest of the request: dropped
        refused = true
        shared.counts.withLockedValue { $0.refused += 1 }
        context.writeAndFlush(wrapOutboundOut(.rstStream(.refusedStream)), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The stream closing with the reset we sent: expected.
    }
}

/// The last handler of an HTTP/2 connection: closes it on a TLS or socket error. NIOHTTP2's own
/// errors are left to NIOHTTP2: it has reset the stream, or sent a GOAWAY for a connection error,
/// and the client closes.
private final class ConnectionErrorCloser: ChannelInboundHandler {
    typealias InboundIn = Any

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is any NIOHTTP2Error || error is NIOHTTP2Errors.StreamError { return }
        context.close(promise: nil)
    }
}
