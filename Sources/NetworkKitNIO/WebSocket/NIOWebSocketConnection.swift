#if NIO
import Foundation
import NetworkKit
import NIOCore
import NIOWebSocket

/// An upgraded WebSocket connection on a SwiftNIO channel: messages read through its inbox (in
/// the reader's task), frames written down the channel to its ``NIOWebSocketHandler``.
struct NIOWebSocketConnection: WebSocketConnection {
    let channel: any Channel
    let inbox: NIOWebSocketInbox
    let subprotocol: String?

    func receive() async throws(NetworkError) -> WebSocketMessage? {
        try await inbox.next()
    }

    func send(_ message: WebSocketMessage) async throws(NetworkError) {
        let frame = switch message {
        case .text(let text): WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
        case .binary(let data): WebSocketFrame(fin: true, opcode: .binary, data: buffer(data))
        }
        try await write(frame)
    }

    func ping(_ payload: Data) async throws(NetworkError) {
        try await write(WebSocketFrame(fin: true, opcode: .ping, data: buffer(payload)))
    }

    /// `data`'s bytes in a buffer of the channel's, copied at once.
    private func buffer(_ data: Data) -> ByteBuffer {
        var buffer = channel.allocator.buffer(capacity: data.count)
        _ = data.withUnsafeBytes { buffer.writeBytes($0) }
        return buffer
    }

    func close(code: UInt16, reason: String) async {
        let request = NIOWebSocketHandler.CloseRequest(code: code, reason: reason)
        try? await channel.triggerUserOutboundEvent(request).get()
        // The handler ends the connection when the server answered, or after its close timeout.
        try? await channel.closeFuture.get()
    }

    private func write(_ frame: WebSocketFrame) async throws(NetworkError) {
        do {
            try await channel.writeAndFlush(frame).get()
        } catch let error as NetworkError {
            throw error
        } catch ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed {
            throw .webSocket(.notOpen)
        } catch {
            throw NIOErrors.failure(for: error)
        }
    }
}
#endif
