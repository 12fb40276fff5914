import Foundation
@testable import NetworkKit
import Testing

/// A WebSocket's reconnection rules as a table: how a connection or an upgrade ended, and the wait
/// before the next upgrade (nil: the socket ends).
@Suite("WebSocket reconnection rules")
struct WebSocketReconnectorTests {
    static let policy = StreamReconnection(delay: .seconds(1), maxDelay: .seconds(5), backoffMultiplier: 2,
                                           maxFailedConnects: 3)
    static let refused = NetworkError.transport(TransportError(.cannotConnectToHost))

    @Test("an end after messages waits the delay, and resets the count of failures", arguments: [
        NetworkError?.none, .webSocket(.dropped), .webSocket(.pingTimedOut), .webSocket(.closed(code: 1012, reason: "")),
        .webSocket(.closed(code: 1001, reason: "")), .webSocket(.closed(code: 4000, reason: "app")),
        .transport(TransportError(.networkConnectionLost)),
    ])
    func endAfterMessages(_ end: NetworkError?) {
        var reconnector = WebSocketReconnector(policy: Self.policy)
        _ = reconnector.next(after: .upgradeFailed(Self.refused))
        #expect(reconnector.next(after: .connectionEnded(end, deliveredMessages: true)) == .seconds(1))
        #expect(reconnector.failedConnects == 0)
    }

    @Test("failed upgrades and silent connections back off together, and give up after the maximum in a row")
    func failuresInARow() {
        var reconnector = WebSocketReconnector(policy: Self.policy)
        #expect(reconnector.next(after: .upgradeFailed(Self.refused)) == .seconds(2))
        #expect(reconnector.next(after: .connectionEnded(.webSocket(.dropped), deliveredMessages: false)) == .seconds(4))
        #expect(reconnector.next(after: .upgradeFailed(Self.refused)) == nil)
        var patient = Self.policy
        patient.maxFailedConnects = 5
        var longer = WebSocketReconnector(policy: patient)
        let waits = (1...5).map { _ in longer.next(after: .upgradeFailed(Self.refused)) }
        #expect(waits == [.seconds(2), .seconds(4), .seconds(5), .seconds(5), nil])
    }

    @Test("ends for good", arguments: [
        WebSocketReconnector.Event.connectionEnded(.webSocket(.protocolViolation(code: 1009, reason: "")), deliveredMessages: true),
        .connectionEnded(.webSocket(.closed(code: 1008, reason: "policy")), deliveredMessages: true),
        .connectionEnded(.webSocket(.closed(code: 1002, reason: "")), deliveredMessages: true),
        .connectionEnded(.webSocket(.notOpen), deliveredMessages: true),
        .connectionEnded(.transport(TransportError(.cancelled)), deliveredMessages: true),
        .upgradeFailed(.httpStatus(code: 401, body: Data(), headerFields: [:])),
        .upgradeFailed(.connection(.unsupported(feature: "WebSocket", transport: "URLSessionTransport"))),
        .upgradeFailed(.transport(TransportError(.cancelled))),
        .upgradeFailed(.cancelled),
    ])
    func endsForGood(_ event: WebSocketReconnector.Event) {
        var reconnector = WebSocketReconnector(policy: Self.policy)
        #expect(reconnector.next(after: event) == nil)
    }

    @Test("off: nothing reconnects")
    func off() {
        var reconnector = WebSocketReconnector(policy: .never)
        #expect(reconnector.next(after: .connectionEnded(.webSocket(.dropped), deliveredMessages: true)) == nil)
        #expect(reconnector.next(after: .upgradeFailed(Self.refused)) == nil)
    }
}
