import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `NK_BENCH_ONLY=tls`: what checking a pinned public key costs a new connection on
/// `NIOTransport`. Two services on the TLS fixture server (test CA as custom roots), one of them
/// pinning the server's key, send sequential GETs with `Connection: close`, so every request
/// makes a new connection and a full handshake; the rounds interleave the two in blocks, and
/// the round with the median ratio pinned / unpinned is printed.
enum TLSBenchmarks {
    static let count = 400
    static let rounds = 7

    static func run() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSFixtureServer.start(presenting: certificates.server)
        defer { server.stop() }
        let url = server.helloURL()
        let roots = TrustRoots.custom([.file(certificates.ca.certificateFile)])
        let plain = try service(TrustSettings(roots: roots))
        let pinned = try service(TrustSettings(roots: roots,
                                               pinnedKeys: [PublicKeyPin(sha256Base64: certificates.server.publicKeyPin)]))
        let clients: [(Int, Int) async throws -> Double] = [
            { count, _ in try await handshakes(pinned, url: url, count: count) },
            { count, _ in try await handshakes(plain, url: url, count: count) },
        ]
        for client in clients { _ = try await client(50, 1) }
        var results: [[Double]] = []
        for _ in 0..<rounds {
            results.append(try await interleavedRound(count: count, inFlight: 1, clients))
        }
        let median = medianRound(results)
        let ratios = results.map { $0[0] / $0[1] }
        print(String(format: "TLS GET x%d, a new connection each (Connection: close), sequential, median of %d rounds: "
                     + "pinned %.0f µs/request, unpinned %.0f µs/request; ratio pinned/unpinned %.3f (rounds %.3f to %.3f)",
                     count, rounds, median[0] / Double(count) * 1e6, median[1] / Double(count) * 1e6,
                     median[0] / median[1], ratios.min() ?? 0, ratios.max() ?? 0))
    }

    private static func service(_ trust: TrustSettings) throws -> Service {
        let configuration = ServiceConfiguration()
        return Service(configuration: configuration, transport: try NIOTransport(connection: ConnectionSettings(trust: trust)))
    }

    /// Seconds for `count` sequential GETs of `url`, each on a connection of its own.
    private static func handshakes(_ service: Service, url: String, count: Int) async throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count {
            let body = try await service.send(Request(url: url, headerFields: [.connection: "close"]))
            guard body == Data(#"{"ok":true}"#.utf8) else { throw BenchError.wrongAnswer }
        }
        return (ContinuousClock.now - start).milliseconds / 1000
    }
}
