import Foundation
import NetworkKit
import Testing
@testable import NetworkKitNIO

/// The inbox between a WebSocket's event loop and its reader, without a network.
@Suite("WebSocket inbox")
struct WebSocketInboxTests {
    /// A reader that stays behind never lets the inbox catch up: what it took must still leave.
    @Test func aMessageLeavesWhenItIsTaken() async throws {
        let readsAsked = Protected(0)
        let inbox = NIOWebSocketInbox(byteLimit: 100) { readsAsked.withLock { $0 += 1 } }
        for index in 0..<10 { inbox.append(.binary(Data(repeating: UInt8(index), count: 10))) }
        #expect(inbox.holdsRead())
        for round in 0..<50 {
            // Take six, then the network delivers six more: the inbox never empties.
            for _ in 0..<6 { _ = try await inbox.next() }
            for _ in 0..<6 { inbox.append(.binary(Data(count: 10))) }
            #expect(inbox.heldMessages == 10, "round \(round)")
        }
        #expect(readsAsked.snapshot >= 1)
        inbox.finish(nil)
        for _ in 0..<10 { #expect(try await inbox.next() != nil) }
        #expect(try await inbox.next() == nil)
    }
}
