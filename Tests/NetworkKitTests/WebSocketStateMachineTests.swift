import NIOCore
import NIOWebSocket
import Testing
@testable import NetworkKitNIO

/// The WebSocket client's protocol rules as tables, with no server: what each frame, close,
/// keep-alive tick and connection end leads to (RFC 6455).
@Suite("WebSocket state machine")
struct WebSocketStateMachineTests {
    typealias Machine = NIOWebSocketHandler.StateMachine

    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8] = [], fin: Bool = true, rsv1: Bool = false,
                      masked: Bool = false) -> WebSocketFrame {
        WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: masked ? [1, 2, 3, 4] : nil,
                       data: ByteBuffer(bytes: bytes))
    }

    static func text(_ string: String, fin: Bool = true) -> WebSocketFrame { frame(.text, Array(string.utf8), fin: fin) }

    static func close(_ code: UInt16?, _ reason: String = "") -> WebSocketFrame {
        var bytes: [UInt8] = []
        if let code { bytes = [UInt8(code >> 8), UInt8(code & 0xFF)] }
        return frame(.connectionClose, bytes + Array(reason.utf8))
    }

    static func machine(limit: Int64 = 16) -> Machine { Machine(maxMessageBytes: limit) }

    // MARK: Messages

    @Test func aWholeTextMessageIsDelivered() {
        var machine = Self.machine()
        #expect(machine.received(Self.text("héllo")) == .deliver(.text("héllo")))
        #expect(machine.phase == .open)
    }

    @Test func fragmentsAreReassembledAndPingsAnsweredBetweenThem() {
        var machine = Self.machine()
        #expect(machine.received(Self.frame(.binary, [1, 2], fin: false)) == .none)
        #expect(machine.received(Self.frame(.ping, [9])) == .pong(ByteBuffer(bytes: [9])))
        #expect(machine.received(Self.frame(.continuation, [3], fin: false)) == .none)
        #expect(machine.received(Self.frame(.continuation, [4])) == .deliver(.binary(ByteBuffer(bytes: [1, 2, 3, 4]))))
        // The next message starts afresh.
        #expect(machine.received(Self.text("a")) == .deliver(.text("a")))
    }

    /// A multi-byte character split between two fragments is whole once reassembled.
    @Test func textIsCheckedAsAWholeMessage() {
        var machine = Self.machine()
        let bytes = Array("é".utf8)
        #expect(machine.received(Self.frame(.text, [bytes[0]], fin: false)) == .none)
        #expect(machine.received(Self.frame(.continuation, [bytes[1]])) == .deliver(.text("é")))
    }

    /// A message of exactly the limit passes; one byte more closes with 1009, counted across
    /// fragments.
    @Test func theMessageLimitCountsEveryFragment() {
        var machine = Self.machine(limit: 4)
        #expect(machine.received(Self.frame(.binary, [1, 2, 3, 4])) == .deliver(.binary(ByteBuffer(bytes: [1, 2, 3, 4]))))
        #expect(machine.received(Self.frame(.binary, [1, 2, 3], fin: false)) == .none)
        let over = machine.received(Self.frame(.continuation, [4, 5]))
        #expect(over == .failConnection(code: 1009, reason: "a message was over the limit of 4 bytes"))
        #expect(machine.phase == .closeSent(code: 1009, violation: "a message was over the limit of 4 bytes"))
    }

    // MARK: What the server may not send

    /// Each breach closes with its code, and the app hears it as a protocol violation once the
    /// connection is over.
    @Test("protocol violations", arguments: [
        (frame(.text, [0x61], masked: true), UInt16(1002), "a frame from the server was masked"),
        (frame(.text, [0x61], rsv1: true), 1002, "a frame used a reserved bit no extension negotiated"),
        (frame(.continuation, [0x61]), 1002, "a continuation frame came outside a message"),
        (frame(.ping, [], fin: false), 1002, "a control frame was fragmented"),
        (frame(.ping, Array(repeating: 0, count: 126)), 1002, "a control frame was over 125 bytes"),
        (frame(WebSocketOpcode(encodedWebSocketOpcode: 3)!, []), 1002, "a frame had the unknown opcode 3"),
        (frame(.text, [0xC3, 0x28]), 1007, "a text message was not UTF-8"),
        (frame(.connectionClose, [0x03]), 1002, "a close frame had a one-byte payload"),
        (close(1006), 1002, "a close frame had the code 1006, which no peer may send"),
        (close(999), 1002, "a close frame had the code 999, which no peer may send"),
        (close(2000), 1002, "a close frame had the code 2000, which no peer may send"),
        (frame(.connectionClose, [0x03, 0xE8, 0xC3, 0x28]), 1007, "a close frame's reason was not UTF-8"),
    ])
    func protocolViolations(_ frame: WebSocketFrame, code: UInt16, reason: String) {
        var machine = Self.machine()
        #expect(machine.received(frame) == .failConnection(code: code, reason: reason))
        #expect(!machine.acceptsMessages)
        // The server's answering close ends the connection; the app hears the violation.
        #expect(machine.received(Self.close(code)) == .closeConnection(.protocolViolation(code: code, reason: reason)))
        #expect(machine.phase == .closed)
    }

    @Test func aNewMessageInsideAnotherIsAViolation() {
        var machine = Self.machine()
        _ = machine.received(Self.text("a", fin: false))
        #expect(machine.received(Self.text("b")) == .failConnection(code: 1002, reason: "a new message began before the last one's final fragment"))
    }

    /// After a violation, a server that drops the connection instead of closing leaves the app
    /// with the violation, not a drop.
    @Test func aViolationThenADrop() {
        var machine = Self.machine()
        _ = machine.received(Self.frame(.text, [0xFF]))
        #expect(machine.connectionEnded() == .protocolViolation(code: 1007, reason: "a text message was not UTF-8"))
        #expect(machine.connectionEnded() == nil)
    }

    // MARK: Closing

    @Test("close codes a peer may send", arguments: [
        (UInt16(1000), true), (1001, true), (1003, true), (1004, false), (1005, false), (1006, false),
        (1007, true), (1011, true), (1014, true), (1015, false), (1016, false), (2999, false),
        (3000, true), (4999, true), (5000, false),
    ])
    func closeCodes(_ code: UInt16, allowed: Bool) {
        #expect(Machine.mayBeSent(code) == allowed)
    }

    @Test func theServerClosesAndTheClientEchoes() {
        var machine = Self.machine()
        #expect(machine.received(Self.close(1001, "bye")) == .echoClose(code: 1001, reason: "bye"))
        #expect(!machine.acceptsMessages)
        // Nothing after a close counts.
        #expect(machine.received(Self.text("late")) == .none)
        #expect(machine.connectionEnded() == .closed(code: 1001, reason: "bye", byClient: false))
    }

    @Test func aCloseWithoutACodeIsEchoedWithoutOne() {
        var machine = Self.machine()
        #expect(machine.received(Self.close(nil)) == .echoClose(code: nil, reason: ""))
        #expect(machine.connectionEnded() == .closed(code: nil, reason: "", byClient: false))
    }

    @Test func theClientClosesAndTheServerAnswers() {
        var machine = Self.machine()
        #expect(machine.close(code: 1000, reason: "done") == .sendClose(code: 1000, reason: "done"))
        #expect(machine.close(code: 1000, reason: "again") == .none)
        #expect(!machine.acceptsMessages)
        // Messages the server sent before it read the close still arrive; pings are not answered.
        #expect(machine.received(Self.text("late")) == .deliver(.text("late")))
        #expect(machine.received(Self.frame(.ping, [1])) == .none)
        #expect(machine.received(Self.close(1000, "ok")) == .closeConnection(.closed(code: 1000, reason: "ok", byClient: true)))
        #expect(machine.connectionEnded() == nil)
    }

    /// Both sides close at once: the server's own code (not an answer to the client's) is how the
    /// connection ended.
    @Test func closesThatCross() {
        var crossing = Self.machine()
        _ = crossing.close(code: 1000, reason: "")
        #expect(crossing.received(Self.close(4000, "bye")) == .closeConnection(.closed(code: 4000, reason: "bye", byClient: false)))
        var echoed = Self.machine()
        _ = echoed.close(code: 4001, reason: "")
        #expect(echoed.received(Self.close(4001)) == .closeConnection(.closed(code: 4001, reason: "", byClient: true)))
    }

    @Test func aDropWithoutAHandshake() {
        var open = Self.machine()
        #expect(open.connectionEnded() == .dropped)
        var closing = Self.machine()
        _ = closing.close(code: 1000, reason: "")
        #expect(closing.connectionEnded() == .dropped)
    }

    // MARK: Keep-alive

    @Test func anAnsweredPingKeepsTheConnection() {
        var machine = Self.machine()
        guard case .ping(let first) = machine.pingTick() else {
            Issue.record("no ping")
            return
        }
        #expect(machine.received(Self.frame(.pong, Array(first.readableBytesView))) == .none)
        guard case .ping(let second) = machine.pingTick() else {
            Issue.record("no second ping")
            return
        }
        #expect(second != first)
        // A pong for another payload does not answer it.
        #expect(machine.received(Self.frame(.pong, [7])) == .none)
        #expect(machine.pingTick() == .closeConnection(.pingTimedOut))
        #expect(machine.phase == .closed)
        #expect(machine.pingTick() == .none)
    }
}
