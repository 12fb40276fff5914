#if NIO
import Foundation
import NetworkKit
import NIOCore
import NIOWebSocket

/// The client's side of one WebSocket connection, on the channel's event loop after the upgrade:
/// it performs what its ``StateMachine`` decides for each frame (messages to the inbox, pongs,
/// the closing handshake), sends the app's frames while the connection is open, pings on the
/// keep-alive interval, and holds reads back while the inbox is full.
///
/// The app's messages come down the pipeline as frames (`channel.writeAndFlush`); a close comes
/// as a ``CloseRequest`` outbound event. Every frame it writes is masked, as a client's must be.
final class NIOWebSocketHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The app's close, as an outbound user event.
    struct CloseRequest: Sendable {
        let code: UInt16
        let reason: String
    }

    /// How long the client waits for the server's part of a closing handshake before it ends the
    /// connection itself.
    static let closeTimeout = TimeAmount.seconds(5)

    private var machine: StateMachine
    private let inbox: NIOWebSocketInbox
    /// permessage-deflate's compressor and decompressor, when it was negotiated.
    private let deflate: (deflater: WebSocketDeflater, inflater: WebSocketInflater)?
    private let pingInterval: TimeAmount?
    private var pinging: RepeatedTask?
    private var closeTimer: Scheduled<Void>?

    /// A handler for a connection whose upgrade accepted `deflate` (nil: no compression).
    init(maxMessageBytes: Int64, pingInterval: Duration?, deflate: WebSocketDeflateParameters?,
         inbox: NIOWebSocketInbox) throws(WebSocketCompressionError) {
        machine = StateMachine(maxMessageBytes: maxMessageBytes, compression: deflate != nil)
        self.deflate = try deflate.map { parameters throws(WebSocketCompressionError) in
            (try WebSocketDeflater(parameters), try WebSocketInflater())
        }
        self.inbox = inbox
        self.pingInterval = pingInterval.map { TimeAmount($0) }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let pingInterval else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        pinging = context.eventLoop.scheduleRepeatedTask(initialDelay: pingInterval, delay: pingInterval) { _ in
            let (handler, context) = loopBound.value
            handler.pingTick(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimers()
    }

    // MARK: Frames from the server

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.received(unwrapInboundIn(data)), context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError {
            let (code, reason): (WebSocketErrorCode, String) = switch error {
            case .invalidFrameLength: (.messageTooLarge, "a frame was over the message limit")
            case .fragmentedControlFrame: (.protocolError, "a control frame was fragmented")
            case .multiByteControlFrameLength: (.protocolError, "a control frame was over 125 bytes")
            }
            perform(machine.frameUnreadable(code, reason), context: context)
        } else {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        if let ending = machine.connectionEnded() { inbox.finish(Self.error(for: ending)) }
        context.fireChannelInactive()
    }

    private func perform(_ action: StateMachine.FrameAction, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .deliver(.text(let text)):
            inbox.append(.text(text))
        case .deliver(.binary(let bytes)):
            inbox.append(.binary(Data(sharing: bytes)))
        case .deliver(.inflatedBinary(let data)):
            inbox.append(.binary(data))
        case .inflate(let payload, let isText):
            let result = Result { () throws(WebSocketCompressionError) -> Data in
                guard let inflater = deflate?.inflater else { throw .corrupt("no compression was negotiated") }
                return try payload.withUnsafeReadableBytes { bytes throws(WebSocketCompressionError) in
                    try inflater.decompress(bytes, limit: Int(clamping: machine.maxMessageBytes))
                }
            }
            perform(machine.inflated(result, isText: isText), context: context)
        case .pong(let payload):
            writeControl(.pong, payload, context: context)
        case .echoClose(let code, let reason):
            writeClose(code: code, reason: reason, context: context)
            awaitEnd(context: context)
        case .failConnection(let code, let reason):
            writeClose(code: code, reason: reason, context: context)
            awaitEnd(context: context)
        case .closeConnection(let ending):
            inbox.finish(Self.error(for: ending))
            context.close(promise: nil)
        }
    }

    // MARK: The app's frames and close

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard machine.acceptsMessages else {
            promise?.fail(NetworkError.webSocket(.notOpen))
            return
        }
        var frame = unwrapOutboundIn(data)
        if let deflater = deflate?.deflater, frame.opcode == .text || frame.opcode == .binary {
            do {
                let compressed = try frame.data.withUnsafeReadableBytes { bytes throws(WebSocketCompressionError) in
                    try deflater.compress(bytes)
                }
                frame = WebSocketFrame(fin: frame.fin, rsv1: true, opcode: frame.opcode,
                                       data: context.channel.allocator.buffer(bytes: compressed))
            } catch {
                promise?.fail(NetworkError.transport(TransportError(.cannotDecodeRawData, detail: "permessage-deflate could not compress a message: \(error)")))
                return
            }
        }
        frame.maskKey = .random()
        context.write(wrapOutboundOut(frame), promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let close = event as? CloseRequest else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if case .sendClose(let code, let reason) = machine.close(code: close.code, reason: close.reason) {
            writeClose(code: code, reason: reason, context: context)
            awaitEnd(context: context)
        }
        promise?.succeed()
    }

    /// Holds a read back while the inbox is full; the inbox asks for it again (`channel.read()`)
    /// once its reader made room.
    func read(context: ChannelHandlerContext) {
        if inbox.holdsRead() { return }
        context.read()
    }

    // MARK: Writing

    private func writeControl(_ opcode: WebSocketOpcode, _ payload: ByteBuffer, context: ChannelHandlerContext) {
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: payload)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func writeClose(code: UInt16?, reason: String, context: ChannelHandlerContext) {
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        if let code {
            payload.writeInteger(code)
            // A close frame's payload is at most 125 bytes: the reason is cut at a character.
            var cut = Substring(reason)
            while cut.utf8.count > 123 { cut = cut.dropLast() }
            payload.writeString(String(cut))
        }
        writeControl(.connectionClose, payload, context: context)
    }

    /// After its part of a closing handshake, the client waits for the server's part (its close,
    /// or the end of the connection) at most ``closeTimeout``, then ends the connection.
    private func awaitEnd(context: ChannelHandlerContext) {
        guard closeTimer == nil else { return }
        pinging?.cancel()
        pinging = nil
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        closeTimer = context.eventLoop.scheduleTask(in: Self.closeTimeout) {
            loopBound.value.close(promise: nil)
        }
    }

    private func pingTick(context: ChannelHandlerContext) {
        switch machine.pingTick() {
        case .ping(let payload):
            writeControl(.ping, payload, context: context)
        case .closeConnection(let ending):
            inbox.finish(Self.error(for: ending))
            context.close(promise: nil)
        case .none:
            break
        }
    }

    private func stopTimers() {
        pinging?.cancel()
        pinging = nil
        closeTimer?.cancel()
        closeTimer = nil
    }

    /// How the app hears `ending`: nil for a normal end (a handshake the client began, or the
    /// server's with 1000, 1001 or no code), else the error.
    static func error(for ending: StateMachine.Ending) -> NetworkError? {
        switch ending {
        case .closed(_, _, byClient: true), .closed(nil, _, _), .closed(1000, _, _), .closed(1001, _, _):
            return nil
        case .closed(let code?, let reason, _):
            return .webSocket(.closed(code: code, reason: reason))
        case .protocolViolation(let code, let reason):
            return .webSocket(.protocolViolation(code: code, reason: reason))
        case .dropped:
            return .webSocket(.dropped)
        case .pingTimedOut:
            return .webSocket(.pingTimedOut)
        }
    }
}
#endif
