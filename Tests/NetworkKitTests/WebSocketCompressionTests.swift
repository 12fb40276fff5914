import Foundation
import NIOCore
import NIOWebSocket
import Testing
@testable import NetworkKit
@testable import NetworkKitNIO

/// permessage-deflate (RFC 7692) without a server: which answers to the offer are taken, the
/// codec against the RFC's own examples, and the state machine's rules for compressed frames.
@Suite("WebSocket compression")
struct WebSocketCompressionTests {
    typealias Machine = NIOWebSocketHandler.StateMachine

    @Test("answers to the offer that are taken", arguments: [
        (String?.none, WebSocketDeflateParameters?.none),
        ("", nil),
        ("permessage-deflate", WebSocketDeflateParameters()),
        ("Permessage-Deflate; server_no_context_takeover; client_no_context_takeover",
         { var p = WebSocketDeflateParameters(); p.serverNoContextTakeover = true; p.clientNoContextTakeover = true; return p }()),
        ("permessage-deflate; server_max_window_bits=10", { var p = WebSocketDeflateParameters(); p.serverMaxWindowBits = 10; return p }()),
        ("permessage-deflate; server_max_window_bits=\"12\"", { var p = WebSocketDeflateParameters(); p.serverMaxWindowBits = 12; return p }()),
    ])
    func taken(_ field: String?, _ expected: WebSocketDeflateParameters?) throws {
        #expect(try WebSocketDeflateParameters.accepted(field, offered: true) == expected)
    }

    @Test("answers to the offer that fail the connection", arguments: [
        "x-webkit-deflate-frame",
        "permessage-deflate, permessage-deflate",
        "permessage-deflate; client_max_window_bits=10",
        "permessage-deflate; server_max_window_bits=7",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; mystery",
    ])
    func refused(_ field: String) {
        #expect(throws: WebSocketExtensionError.self) { try WebSocketDeflateParameters.accepted(field, offered: true) }
    }

    @Test func anExtensionNotOfferedFailsTheConnection() {
        #expect(throws: WebSocketExtensionError.self) { try WebSocketDeflateParameters.accepted("permessage-deflate", offered: false) }
    }

    /// RFC 7692, 7.2.3.1 and 7.2.3.2: "Hello", and the same again with the window kept.
    @Test func theRFCsExamplesInflate() throws {
        let inflater = try WebSocketInflater()
        let first: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        let second: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]
        #expect(try first.withUnsafeBytes { try inflater.decompress($0, limit: 100) } == Data("Hello".utf8))
        #expect(try second.withUnsafeBytes { try inflater.decompress($0, limit: 100) } == Data("Hello".utf8))
    }

    @Test("round trips, with and without context takeover", arguments: [false, true])
    func roundTrips(noContextTakeover: Bool) throws {
        var parameters = WebSocketDeflateParameters()
        parameters.clientNoContextTakeover = noContextTakeover
        let deflater = try WebSocketDeflater(parameters)
        let inflater = try WebSocketInflater()
        let message = Data(String(repeating: "a message that repeats itself; ", count: 100).utf8)
        var sizes: [Int] = []
        for _ in 0..<3 {
            let compressed = try message.withUnsafeBytes { try deflater.compress($0) }
            #expect(!compressed.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]))
            sizes.append(compressed.count)
            #expect(try compressed.withUnsafeBytes { try inflater.decompress($0, limit: 1 << 20) } == message)
        }
        // With the window kept, the second message refers back to the first and is smaller.
        #expect(noContextTakeover ? sizes[1] == sizes[0] : sizes[1] < sizes[0])
        let empty = try Data().withUnsafeBytes { try deflater.compress($0) }
        #expect(try empty.withUnsafeBytes { try inflater.decompress($0, limit: 10) } == Data())
    }

    @Test func aBombStopsAtTheLimitAndGarbageIsCorrupt() throws {
        let deflater = try WebSocketDeflater(WebSocketDeflateParameters())
        let bomb = try Data(count: 1 << 20).withUnsafeBytes { try deflater.compress($0) }
        #expect(bomb.count < 2_000)
        #expect(throws: WebSocketCompressionError.limitExceeded(65_536)) {
            try bomb.withUnsafeBytes { try WebSocketInflater().decompress($0, limit: 65_536) }
        }
        #expect {
            try [UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { try WebSocketInflater().decompress($0, limit: 1_000) }
        } throws: { error in
            guard case .corrupt = error as? WebSocketCompressionError else { return false }
            return true
        }
    }

    // MARK: The state machine

    static func frame(_ opcode: WebSocketOpcode, _ bytes: [UInt8] = [], fin: Bool = true, rsv1: Bool = false) -> WebSocketFrame {
        WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, data: ByteBuffer(bytes: bytes))
    }

    @Test func aCompressedMessageIsReassembledThenInflated() {
        var machine = Machine(maxMessageBytes: 100, compression: true)
        #expect(machine.received(Self.frame(.text, [1, 2], fin: false, rsv1: true)) == .none)
        #expect(machine.received(Self.frame(.continuation, [3])) == .inflate(ByteBuffer(bytes: [1, 2, 3]), isText: true))
        #expect(machine.inflated(.success(Data("hi".utf8)), isText: true) == .deliver(.text("hi")))
        #expect(machine.received(Self.frame(.binary, [4], rsv1: true)) == .inflate(ByteBuffer(bytes: [4]), isText: false))
        #expect(machine.inflated(.success(Data([9])), isText: false) == .deliver(.inflatedBinary(Data([9]))))
        // A message may also come uncompressed.
        #expect(machine.received(Self.frame(.binary, [5])) == .deliver(.binary(ByteBuffer(bytes: [5]))))
    }

    @Test("what inflating ends in", arguments: [
        (Result<Data, WebSocketCompressionError>.failure(.limitExceeded(100)), true, UInt16(1009)),
        (.failure(.corrupt("bad")), false, 1002),
        (.success(Data([0xC3, 0x28])), true, 1007),
    ])
    func inflatingFails(_ result: Result<Data, WebSocketCompressionError>, isText: Bool, code: UInt16) {
        var machine = Machine(maxMessageBytes: 100, compression: true)
        guard case .failConnection(let sent, _) = machine.inflated(result, isText: isText) else {
            Issue.record("expected the connection to fail with \(code)")
            return
        }
        #expect(sent == code)
    }

    @Test("RSV1 where it may not be", arguments: [
        (false, WebSocketOpcode.text, true),   // no compression negotiated
        (true, .continuation, false),          // on a continuation
        (true, .ping, true),                   // on a control frame
    ])
    func misplacedRSV1(compression: Bool, opcode: WebSocketOpcode, fin: Bool) {
        var machine = Machine(maxMessageBytes: 100, compression: compression)
        if opcode == .continuation { _ = machine.received(Self.frame(.text, [1], fin: false, rsv1: true)) }
        guard case .failConnection(1002, _) = machine.received(Self.frame(opcode, [], fin: true, rsv1: true)) else {
            Issue.record("RSV1 on \(opcode) was taken")
            return
        }
    }
}
