import Foundation
@testable import NetworkKit
import Testing

/// The reconnection rules as a table: how a connection ended, and the wait before the next one.
@Suite("Stream reconnection rules")
struct StreamReconnectorTests {
    static let policy = StreamReconnection(delay: .seconds(1), maxDelay: .seconds(5), backoffMultiplier: 2,
                                           maxFailedConnects: 3)
    static let drop = NetworkError.transport(TransportError(.networkConnectionLost))

    @Test("a clean end waits the server's retry, else the policy's delay")
    func cleanEnd() {
        var reconnector = StreamReconnector(policy: Self.policy)
        #expect(reconnector.next(after: .endOfBody, serverDelay: nil) == .seconds(1))
        #expect(reconnector.next(after: .endOfBody, serverDelay: .milliseconds(250)) == .milliseconds(250))
    }

    @Test("failed connects back off, capped, and give up after the maximum in a row")
    func failedConnects() {
        var reconnector = StreamReconnector(policy: Self.policy)
        let waits = (1...3).map { _ in reconnector.next(after: .failed(Self.drop, began: false), serverDelay: nil) }
        #expect(waits == [.seconds(2), .seconds(4), nil])   // the third failed connect in a row ends it
        var patient = Self.policy
        patient.maxFailedConnects = 4
        var longer = StreamReconnector(policy: patient)
        let capped = (1...4).map { _ in longer.next(after: .failed(Self.drop, began: false), serverDelay: nil) }
        #expect(capped == [.seconds(2), .seconds(4), .seconds(5), nil])
    }

    @Test("a drop after the body began resets the count of failed connects")
    func dropAfterBegin() {
        var reconnector = StreamReconnector(policy: Self.policy)
        _ = reconnector.next(after: .failed(Self.drop, began: false), serverDelay: nil)
        _ = reconnector.next(after: .failed(Self.drop, began: false), serverDelay: nil)
        #expect(reconnector.next(after: .failed(Self.drop, began: true), serverDelay: nil) == .seconds(1))
        #expect(reconnector.failedConnects == 0)
    }

    @Test("stops for good", arguments: [
        StreamReconnector.ConnectionEnd.noContent,
        .failed(.httpStatus(code: 503, body: Data(), headerFields: [:]), began: false),
        .failed(.parse(ParseError(parser: "events", reason: "text/plain", kind: .contentType)), began: true),
        .failed(.cancelled, began: true),
        .failed(.transport(TransportError(.cancelled)), began: true),
        .failed(.responseTooLarge(limit: 10), began: true),
        .failed(.streamBufferFull(limit: 4), began: true),
    ])
    func stops(end: StreamReconnector.ConnectionEnd) {
        var reconnector = StreamReconnector(policy: Self.policy)
        #expect(reconnector.next(after: end, serverDelay: nil) == nil)
    }

    @Test("never reconnects when turned off")
    func off() {
        var reconnector = StreamReconnector(policy: .never)
        #expect(reconnector.next(after: .endOfBody, serverDelay: nil) == nil)
        #expect(reconnector.next(after: .failed(Self.drop, began: true), serverDelay: nil) == nil)
    }
}
