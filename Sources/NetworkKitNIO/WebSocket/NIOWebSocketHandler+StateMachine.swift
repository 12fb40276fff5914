#if NIO
import Foundation
import NetworkKit
import NIOCore
import NIOWebSocket

extension NIOWebSocketHandler {
    /// RFC 6455's rules for the client's side of one connection, as a state machine: each frame
    /// read, each close the app asks for, each keep-alive tick and the connection's end come in as
    /// events, and what to do comes back as an action. It holds no lock and does no I/O, so its
    /// rules are tested as tables (`WebSocketStateMachineTests`); `NIOWebSocketHandler` performs
    /// the actions on the channel's event loop.
    ///
    ///     open ──the app closes──▶ closeSent ──the server's close──▶ closed
    ///     open ──a protocol violation (a close with its code)──▶ closeSent ──the server's close──▶ closed
    ///     open ──the server's close (echoed)──▶ closeReceived ──the connection ends──▶ closed
    ///     any ──the connection ends──▶ closed
    ///
    /// The app hears how the connection ended once, when it is over (`closeConnection`, or the
    /// value `connectionEnded()` returns).
    ///
    /// What it checks of every frame from the server: no mask, no reserved bit but RSV1 on the
    /// first frame of a message when permessage-deflate was negotiated, a known opcode, control frames unfragmented and at most 125 bytes,
    /// continuations only inside a message, a message's bytes within the limit (`1009`
    /// otherwise), text that is UTF-8 (`1007` otherwise), a close's code one a peer may send.
    struct StateMachine {
        /// Where the connection is.
        enum Phase: Equatable {
            /// Messages flow both ways.
            case open
            /// The client sent a close with `code` and waits for the server's; `violation` says why
            /// when the client closed because the server broke the protocol.
            case closeSent(code: UInt16, violation: String?)
            /// The server closed with `code` (nil when its close had none), the client echoed it and
            /// waits for the server to end the connection.
            case closeReceived(code: UInt16?, reason: String)
            /// Over.
            case closed
        }

        /// A message as the app receives it.
        enum Message: Equatable {
            /// A text message, checked as UTF-8.
            case text(String)
            /// A binary message.
            case binary(ByteBuffer)
            /// A binary message inflated from a compressed one.
            case inflatedBinary(Data)
        }

        /// How the connection ended, as the app hears it.
        enum Ending: Equatable {
            /// A closing handshake: the close code (nil when the close frame had none, 1005 on the
            /// wire) and reason, and whether the client began it.
            case closed(code: UInt16?, reason: String, byClient: Bool)
            /// The client closed the connection because the server broke the protocol; `code` is the
            /// close code it sent.
            case protocolViolation(code: UInt16, reason: String)
            /// The connection ended without a closing handshake (1006).
            case dropped
            /// The keep-alive ping went unanswered.
            case pingTimedOut
        }

        /// What the driver does after a frame.
        enum FrameAction: Equatable {
            /// Nothing: a fragment was kept, or the frame is one to ignore.
            case none
            /// Hand the message to the app.
            case deliver(Message)
            /// Inflate the compressed payload of a whole message, then tell the machine
            /// (`inflated(_:isText:)`).
            case inflate(ByteBuffer, isText: Bool)
            /// Answer a ping with a pong carrying `payload`.
            case pong(ByteBuffer)
            /// Echo the server's close (this code and reason) and wait for the connection's end.
            case echoClose(code: UInt16?, reason: String)
            /// The closing handshake is over, or cannot go on: end the connection, and the app
            /// hears `ending`.
            case closeConnection(Ending)
            /// The server broke the protocol: send a close with `code` and `reason`, and wait for the
            /// server's close or the connection's end.
            case failConnection(code: UInt16, reason: String)
        }

        /// What the driver does when the app closes.
        enum CloseAction: Equatable {
            /// Send a close frame with this code and reason, then wait for the server's.
            case sendClose(code: UInt16, reason: String)
            /// A close is already under way, or over: nothing to send.
            case none
        }

        /// What the driver does on a keep-alive tick.
        enum PingAction: Equatable {
            /// Send a ping with this payload.
            case ping(ByteBuffer)
            /// The last ping went unanswered for a whole interval: end the connection.
            case closeConnection(Ending)
            /// The connection is closing or closed: no ping.
            case none
        }

        /// The most bytes a message may have; a larger one closes the connection with `1009`.
        let maxMessageBytes: Int64
        /// Whether permessage-deflate was negotiated: a message may come compressed (RSV1).
        let compression: Bool
        /// Where the connection is.
        private(set) var phase = Phase.open
        /// The data message whose fragments are arriving, if any.
        private var assembly: (isText: Bool, compressed: Bool, bytes: ByteBuffer)?
        /// The payload of the keep-alive ping not yet answered, if any.
        private var unansweredPing: ByteBuffer?
        /// How many keep-alive pings were sent (each payload is this number).
        private var pingsSent: UInt64 = 0

        /// A machine for an open connection.
        init(maxMessageBytes: Int64, compression: Bool = false) {
            self.maxMessageBytes = maxMessageBytes
            self.compression = compression
        }

        // MARK: Frames from the server

        /// A frame read from the server.
        mutating func received(_ frame: WebSocketFrame) -> FrameAction {
            switch phase {
            case .closed, .closeReceived:
                // Nothing may follow a close; what the server sends anyway is dropped.
                return .none
            case .open, .closeSent:
                break
            }
            if frame.maskKey != nil { return violation(.protocolError, "a frame from the server was masked") }
            let compressible = frame.opcode == .text || frame.opcode == .binary
            if frame.rsv2 || frame.rsv3 || (frame.rsv1 && !(compression && compressible)) {
                return violation(.protocolError, "a frame used a reserved bit no extension negotiated")
            }
            switch frame.opcode {
            case .ping, .pong, .connectionClose:
                guard frame.fin else { return violation(.protocolError, "a control frame was fragmented") }
                guard frame.length <= 125 else { return violation(.protocolError, "a control frame was over 125 bytes") }
                return receivedControl(frame)
            case .text, .binary:
                guard assembly == nil else {
                    return violation(.protocolError, "a new message began before the last one's final fragment")
                }
                assembly = (frame.opcode == .text, frame.rsv1, ByteBuffer())
                return receivedData(frame)
            case .continuation:
                guard assembly != nil else { return violation(.protocolError, "a continuation frame came outside a message") }
                return receivedData(frame)
            default:
                return violation(.protocolError, "a frame had the unknown opcode \(UInt8(webSocketOpcode: frame.opcode))")
            }
        }

        /// The frame decoder could not read a frame (one over the limit, a control frame too long or
        /// fragmented): the same as a frame that breaks the protocol.
        mutating func frameUnreadable(_ code: WebSocketErrorCode, _ reason: String) -> FrameAction {
            violation(code, reason)
        }

        private mutating func receivedData(_ frame: WebSocketFrame) -> FrameAction {
            guard let (isText, compressed, kept) = assembly else { return .none }
            var bytes = kept
            guard Int64(bytes.readableBytes) + Int64(frame.length) <= maxMessageBytes else {
                assembly = nil
                return violation(.messageTooLarge, "a message was over the limit of \(maxMessageBytes) bytes")
            }
            var data = frame.data
            bytes.writeBuffer(&data)
            guard frame.fin else {
                assembly = (isText, compressed, bytes)
                return .none
            }
            assembly = nil
            if compressed { return .inflate(bytes, isText: isText) }
            // Messages the server sent before it read the client's close are still delivered.
            guard isText else { return .deliver(.binary(bytes)) }
            return deliverText(bytes.readableBytesView)
        }

        /// The driver inflated a compressed message (`.inflate`): `result` is its bytes, or why
        /// they could not be had (past the limit: `1009`; not deflate: `1002`).
        mutating func inflated(_ result: Result<Data, WebSocketCompressionError>, isText: Bool) -> FrameAction {
            switch result {
            case .success(let bytes):
                return isText ? deliverText(bytes) : .deliver(.inflatedBinary(bytes))
            case .failure(.limitExceeded):
                return violation(.messageTooLarge, "a message was over the limit of \(maxMessageBytes) bytes once inflated")
            case .failure(.corrupt):
                return violation(.protocolError, "a compressed message did not inflate")
            }
        }

        private mutating func deliverText(_ bytes: some Collection<UInt8>) -> FrameAction {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                return violation(.dataInconsistentWithMessage, "a text message was not UTF-8")
            }
            return .deliver(.text(text))
        }

        private mutating func receivedControl(_ frame: WebSocketFrame) -> FrameAction {
            switch frame.opcode {
            case .ping:
                if case .closeSent = phase { return .none }
                return .pong(frame.data)
            case .pong:
                if let unansweredPing, unansweredPing == frame.data { self.unansweredPing = nil }
                return .none
            default:
                return receivedClose(frame.data)
            }
        }

        private mutating func receivedClose(_ payload: ByteBuffer) -> FrameAction {
            var payload = payload
            let code: UInt16?
            switch payload.readableBytes {
            case 0:
                code = nil
            case 1:
                return violation(.protocolError, "a close frame had a one-byte payload")
            default:
                code = payload.readInteger(as: UInt16.self)
            }
            if let code, !Self.mayBeSent(code) {
                return violation(.protocolError, "a close frame had the code \(code), which no peer may send")
            }
            guard let reason = String(validating: payload.readableBytesView, as: UTF8.self) else {
                return violation(.dataInconsistentWithMessage, "a close frame's reason was not UTF-8")
            }
            switch phase {
            case .closeSent(let sent, let violation):
                phase = .closed
                if let violation { return .closeConnection(.protocolViolation(code: sent, reason: violation)) }
                // The server's answer echoes the client's close, or says it is fine with it; any
                // other code is the server's own close, crossing the client's on the wire.
                let answers = code == nil || code == sent || code == 1000 || code == 1001
                return .closeConnection(.closed(code: code, reason: reason, byClient: answers))
            case .open:
                phase = .closeReceived(code: code, reason: reason)
                return .echoClose(code: code, reason: reason)
            case .closeReceived, .closed:
                return .none
            }
        }

        /// The server broke the protocol: close with `code`, unless a close is already under way.
        private mutating func violation(_ code: WebSocketErrorCode, _ reason: String) -> FrameAction {
            let number = UInt16(webSocketErrorCode: code)
            switch phase {
            case .open:
                phase = .closeSent(code: number, violation: reason)
                return .failConnection(code: number, reason: reason)
            case .closeSent(let sent, let earlier):
                // The server answers a close with nonsense: the connection ends now.
                phase = .closed
                return .closeConnection(.protocolViolation(code: earlier == nil ? number : sent, reason: earlier ?? reason))
            case .closeReceived, .closed:
                return .none
            }
        }

        /// Whether a close frame from a peer may carry `code` (RFC 6455, 7.4; 1012 to 1014 as IANA
        /// registered them). 1005, 1006 and 1015 only ever stand for a missing code.
        static func mayBeSent(_ code: UInt16) -> Bool {
            switch code {
            case 1000...1003, 1007...1014, 3000...4999: return true
            default: return false
            }
        }

        // MARK: The app and the clock

        /// The app closes with `code` and `reason`.
        mutating func close(code: UInt16, reason: String) -> CloseAction {
            guard case .open = phase else { return .none }
            phase = .closeSent(code: code, violation: nil)
            return .sendClose(code: code, reason: reason)
        }

        /// Whether the app may send a message now (only while the connection is open).
        var acceptsMessages: Bool { phase == .open }

        /// A keep-alive tick: a ping, unless the last one is still unanswered.
        mutating func pingTick() -> PingAction {
            guard case .open = phase else { return .none }
            if unansweredPing != nil {
                phase = .closed
                return .closeConnection(.pingTimedOut)
            }
            pingsSent += 1
            var payload = ByteBuffer()
            payload.writeInteger(pingsSent)
            unansweredPing = payload
            return .ping(payload)
        }

        /// The connection ended (the server, the network, or the driver after a close): how the
        /// app hears it, or nil when it has already heard.
        mutating func connectionEnded() -> Ending? {
            defer { phase = .closed }
            switch phase {
            case .open, .closeSent(_, nil):
                return .dropped
            case .closeSent(let code, let violation?):
                return .protocolViolation(code: code, reason: violation)
            case .closeReceived(let code, let reason):
                return .closed(code: code, reason: reason, byClient: false)
            case .closed:
                return nil
            }
        }
    }
}
#endif
