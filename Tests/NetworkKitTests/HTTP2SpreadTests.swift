import FixtureServer
import Foundation
@testable import NetworkKit
@testable import NetworkKitNIO
import Testing

/// Several HTTP/2 connections to one host on the NIO transport (`http2ConnectionsPerHost`):
/// the rules of `NIOHTTP2Spread.StateMachine` as tables, then the transport against a
/// `RotatingServer` that allows 8 streams per connection, counting what the server saw.
@Suite("HTTP/2 connections per host")
struct HTTP2SpreadTests {
    typealias Machine = NIOHTTP2Spread.StateMachine

    // MARK: - The rules

    /// A host not known to speak HTTP/2 is sent everything on connection 0, an HTTP/1.1 host
    /// too; hosts are apart.
    @Test func everythingOnConnectionZeroUntilHTTP2() {
        var machine = Machine(maxConnections: 4)
        for _ in 0..<300 {
            let connection = machine.place(host: "h")
            #expect(connection == 0)
        }
        machine.answered(host: "h", http2: false)
        let after = machine.place(host: "h")
        #expect(after == 0)
        #expect(machine.hosts["h"]?.connections.count == 1)
        #expect(machine.hosts["h"]?.connections[0].inFlight == 301)
        let other = machine.place(host: "other")
        #expect(other == 0)
        #expect(machine.hosts.count == 2)
    }

    /// A connection shows its limit when a stream closes while a request placed on it waits for
    /// one: the streams open just before. Then a request goes on a new connection, assumed to
    /// allow as many, then on the least loaded.
    @Test func limitShownAtACloseWhileRequestsWait() {
        var machine = Machine(maxConnections: 3)
        for _ in 0..<10 { _ = machine.place(host: "h") }
        for open in 1...8 { machine.streamOpened(host: "h", connection: 0, openStreams: open) }
        #expect(machine.hosts["h"]?.speaksHTTP2 == true)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == nil, "no stream closed yet")
        machine.streamClosed(host: "h", connection: 0, openStreams: 8)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == 8)
        let places = (0..<18).map { _ in machine.place(host: "h") }
        #expect(places == Array(repeating: 1, count: 8) + Array(repeating: 2, count: 8) + [1, 2],
                "connection 0 has 10 of 8: 1 and 2 fill to 8, then the least loaded")
        #expect(machine.hosts["h"]?.connections.map(\.inFlight) == [10, 9, 9])
    }

    /// A close with no request waiting shows nothing; the estimate only grows, to the most
    /// streams seen open.
    @Test func estimateOnlyGrows() {
        var machine = Machine(maxConnections: 2)
        _ = machine.place(host: "h")
        _ = machine.place(host: "h")
        machine.streamOpened(host: "h", connection: 0, openStreams: 1)
        machine.streamOpened(host: "h", connection: 0, openStreams: 2)
        machine.streamClosed(host: "h", connection: 0, openStreams: 2)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == nil)
        for _ in 0..<3 { _ = machine.place(host: "h") }
        machine.streamOpened(host: "h", connection: 0, openStreams: 2)
        machine.streamClosed(host: "h", connection: 0, openStreams: 2)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == 2, "a low estimate, from requests in transit")
        machine.streamOpened(host: "h", connection: 0, openStreams: 3)
        machine.streamOpened(host: "h", connection: 0, openStreams: 4)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == 4)
        machine.streamClosed(host: "h", connection: 0, openStreams: 1)
        #expect(machine.hosts["h"]?.connections[0].streamLimit == 4)
    }

    /// When nothing is in flight on a connection, nothing waits for a stream either (a request
    /// that ended before its stream opened is not counted as waiting for ever).
    @Test func idleConnectionAwaitsNothing() {
        var machine = Machine(maxConnections: 2)
        _ = machine.place(host: "h")
        _ = machine.place(host: "h")
        machine.ended(host: "h", connection: 0)
        #expect(machine.hosts["h"]?.connections[0].awaitingStream == 2)
        machine.ended(host: "h", connection: 0)
        #expect(machine.hosts["h"]?.connections[0].awaitingStream == 0)
        machine.ended(host: "h", connection: 0)
        #expect(machine.hosts["h"]?.connections[0].inFlight == 0)
    }

    /// An answer over HTTP/2 teaches HTTP/2 before any stream report; over HTTP/1.1 nothing.
    @Test func answersTeachHTTP2() {
        var machine = Machine(maxConnections: 2)
        _ = machine.place(host: "h")
        machine.answered(host: "h", http2: false)
        #expect(machine.hosts["h"]?.speaksHTTP2 == false)
        machine.answered(host: "h", http2: true)
        #expect(machine.hosts["h"]?.speaksHTTP2 == true)
    }

    /// Reports for hosts and connections the machine does not know change nothing.
    @Test func strayReportsChangeNothing() {
        var machine = Machine(maxConnections: 2)
        machine.streamOpened(host: "h", connection: 0, openStreams: 1)
        machine.streamClosed(host: "h", connection: 0, openStreams: 1)
        machine.answered(host: "h", http2: true)
        machine.ended(host: "h", connection: 0)
        #expect(machine.hosts.isEmpty)
        _ = machine.place(host: "h")
        machine.streamOpened(host: "h", connection: 5, openStreams: 1)
        machine.ended(host: "h", connection: 5)
        #expect(machine.hosts["h"]?.connections == [.init(inFlight: 1, awaitingStream: 1)])
    }

    /// Idle hosts are forgotten once the table is full; hosts in use are kept.
    @Test func idleHostsAreForgotten() {
        var machine = Machine(maxConnections: 2)
        _ = machine.place(host: "busy")
        for index in 0..<Machine.rememberedHosts {
            _ = machine.place(host: "idle\(index)")
            machine.ended(host: "idle\(index)", connection: 0)
        }
        #expect(machine.hosts.count <= Machine.rememberedHosts)
        #expect(machine.hosts["busy"] != nil)
    }

    /// Keys: the scheme must be https; names lowercased, brackets and default ports alike.
    @Test func hostKeys() {
        #expect(NIOHTTP2Spread.hostKey(of: URL(string: "https://Example.COM/a")) == "example.com:443")
        #expect(NIOHTTP2Spread.hostKey(of: URL(string: "https://example.com:8443/a")) == "example.com:8443")
        #expect(NIOHTTP2Spread.hostKey(of: URL(string: "http://example.com/a")) == nil)
        #expect(NIOHTTP2Spread.hostKey(of: URL(string: "https://[::1]:9000/")) == "::1:9000")
        #expect(NIOHTTP2Spread.hostKey(authority: "Example.com") == "example.com:443")
        #expect(NIOHTTP2Spread.hostKey(authority: "example.com:8443") == "example.com:8443")
        #expect(NIOHTTP2Spread.hostKey(authority: "[::1]:9000") == "::1:9000")
        #expect(NIOHTTP2Spread.hostKey(authority: "127.0.0.1:9000") == "127.0.0.1:9000")
    }

    // MARK: - Against a server

    /// 64 GETs in flight to a server that allows 8 streams per connection, spread over up to 4
    /// connections: none lost, more than 8 streams open at once, never more than 8 on one.
    @Test func spreadsOverSeveralConnections() async throws {
        let behaviour = RotatingServer.Behaviour(answerDelay: .milliseconds(20), maxConcurrentStreams: 8)
        try await ConnectionRotationTests.run(behaviour, http2ConnectionsPerHost: 4) { server, rig in
            let outcome = try await rig.send(count: 256, inFlight: 64) { id in
                Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
            }
            outcome.expectNoneLost(of: 256, processed: server.counts)
            let counts = server.counts
            #expect(counts.peakOpenStreams > 8, "the requests did not spread: \(counts.peakOpenStreams) streams open at most")
            #expect(counts.peakOpenStreams <= 32)
            #expect(counts.peakOpenStreamsOnAConnection <= 8)
            #expect(counts.refused == 0)
            #expect(rig.monitor.versions == [.http2])
        }
    }

    /// By default one connection: never more than the server's 8 streams open at once.
    @Test func oneConnectionByDefault() async throws {
        let behaviour = RotatingServer.Behaviour(answerDelay: .milliseconds(5), maxConcurrentStreams: 8)
        try await ConnectionRotationTests.run(behaviour) { server, rig in
            let outcome = try await rig.send(count: 64, inFlight: 64) { id in
                Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
            }
            outcome.expectNoneLost(of: 64, processed: server.counts)
            #expect(server.counts.peakOpenStreams <= 8)
        }
    }

    /// GOAWAYs on every connection while requests spread: none lost, none processed twice.
    @Test func goAwayWhileSpread() async throws {
        let behaviour = RotatingServer.Behaviour(goAwayAfterStreams: 50, maxConcurrentStreams: 8)
        try await ConnectionRotationTests.run(behaviour, http2ConnectionsPerHost: 4) { server, rig in
            let outcome = try await rig.send(count: 600, inFlight: 64) { id in
                Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
            }
            outcome.expectNoneLost(of: 600, processed: server.counts)
            #expect(server.counts.goAways >= 10)
        }
    }

    /// An HTTP/1.1-only client spreads nothing: every request goes through the first client's
    /// HTTP/1 pool.
    @Test func http1HostsAreNotSpread() async throws {
        try await ConnectionRotationTests.run(.init(answerDelay: .milliseconds(5)), versions: .http1Only,
                                              http2ConnectionsPerHost: 4) { server, rig in
            let outcome = try await rig.send(count: 64, inFlight: 32) { id in
                Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
            }
            outcome.expectNoneLost(of: 64, processed: server.counts)
            #expect(rig.monitor.versions == [.http1_1])
            #expect(server.counts.connections <= 8, "one client's pool: at most its 8 connections")
        }
    }
}
