import AsyncHTTPClient
import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `NK_BENCH_ONLY=rotation`: requests per second over a server that rotates its connections every
/// 1,000 requests, as nginx and hypercorn do by default (`RotatingServer`: a `GOAWAY` on HTTP/2, a
/// closed keep-alive connection on HTTP/1.1), over TLS on the NIO transport.
///
/// 1. NetworkKit on HTTP/2 against NetworkKit on HTTP/1.1, sequential and at 16 and 64 in flight.
/// 2. NetworkKit against a bare AsyncHTTPClient on HTTP/2, the bare client sending through the
///    transport's own `HTTPClient` (the same connections, as in `NIOBenchmarks`). The bare client
///    does not send again what a `GOAWAY` dropped: its failures are counted, not timed apart.
///
/// Rounds interleave the two clients in blocks; the round with the median ratio is printed, with
/// the requests each side lost over the whole run (NetworkKit's must be 0).
enum RotationBenchmarks {
    static let count = 3_000
    static let rounds = 5
    static let rotation = 1_000

    static func run() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let behaviour = RotatingServer.Behaviour(goAwayAfterStreams: rotation, closeHTTP1After: rotation)
        let server = try await RotatingServer.start(presenting: certificates.server, behaviour: behaviour)
        let url = server.url("/rotate/hello?id=bench")
        let trust = TrustSettings(roots: .custom([.file(certificates.ca.certificateFile)]))
        print("nk-bench rotation: TLS, a rotation every \(rotation) requests (ratios: first / second, lower is better)")
        do {
            for inFlight in [1, 16, 64] {
                try await versions(url: url, trust: trust, inFlight: inFlight)
            }
            for inFlight in [16, 64] {
                try await againstBare(url: url, trust: trust, inFlight: inFlight)
            }
        } catch {
            await server.stop()
            throw error
        }
        let counts = server.counts
        print("server: \(counts.connections) connections, \(counts.goAways) GOAWAYs, \(counts.http1Closes) HTTP/1.1 closes, "
              + "\(counts.processed) requests processed")
        await server.stop()
    }

    /// NetworkKit on HTTP/2 against NetworkKit on HTTP/1.1.
    private static func versions(url: String, trust: TrustSettings, inFlight: Int) async throws {
        let lost = Tally()
        let h2 = try service(trust: trust, versions: .http2WhenOffered)
        let h1 = try service(trust: trust, versions: .http1Only)
        let clients: [(Int, Int) async throws -> Double] = [
            { try await batch(h2.service, url: url, count: $0, inFlight: $1, lost: lost) },
            { try await batch(h1.service, url: url, count: $0, inFlight: $1, lost: lost) },
        ]
        let results = try await measured(clients, inFlight: inFlight)
        let median = medianRound(results)
        print(String(format: "GET x%d %@: HTTP/2 %.0f req/s, HTTP/1.1 %.0f req/s; ratio of times h2/h1.1 %.2f "
                     + "(rounds %.2f to %.2f); lost: %d",
                     count, label(inFlight), Double(count) / median[0], Double(count) / median[1], median[0] / median[1],
                     results.map { $0[0] / $0[1] }.min() ?? 0, results.map { $0[0] / $0[1] }.max() ?? 0, lost.value))
    }

    /// NetworkKit against a bare AsyncHTTPClient on the same HTTP/2 connections.
    private static func againstBare(url: String, trust: TrustSettings, inFlight: Int) async throws {
        let kitLost = Tally(), bareLost = Tally()
        let kit = try service(trust: trust, versions: .http2WhenOffered)
        let bare = BareAsyncHTTPClient(sharing: kit.transport.client)
        let clients: [(Int, Int) async throws -> Double] = [
            { try await batch(kit.service, url: url, count: $0, inFlight: $1, lost: kitLost) },
            { count, inFlight in
                try await timed(count: count, inFlight: inFlight) {
                    do { try await bare.hello(url) } catch { bareLost.add() }
                }
            },
        ]
        let results = try await measured(clients, inFlight: inFlight)
        let median = medianRound(results)
        let sent = count * rounds + 200   // each client's, its warm-up included
        print(String(format: "HTTP/2 GET x%d %@: NetworkKit %.0f req/s, bare AsyncHTTPClient %.0f req/s; ratio kit/bare %.2f "
                     + "(rounds %.2f to %.2f); lost of %d: NetworkKit %d, bare AsyncHTTPClient %d",
                     count, label(inFlight), Double(count) / median[0], Double(count) / median[1], median[0] / median[1],
                     results.map { $0[0] / $0[1] }.min() ?? 0, results.map { $0[0] / $0[1] }.max() ?? 0,
                     sent, kitLost.value, bareLost.value))
    }

    /// `rounds` interleaved rounds of `clients`, after one warm-up batch each.
    private static func measured(_ clients: [(Int, Int) async throws -> Double], inFlight: Int) async throws -> [[Double]] {
        for client in clients { _ = try await client(200, inFlight) }
        var results: [[Double]] = []
        for _ in 0..<rounds {
            results.append(try await interleavedRound(count: count, inFlight: inFlight, clients))
        }
        return results
    }

    private static func service(trust: TrustSettings, versions: HTTPVersionPreference) throws -> (service: Service, transport: NIOTransport) {
        let transport = try NIOTransport(connection: ConnectionSettings(trust: trust, httpVersions: versions))
        let configuration = ServiceConfiguration()
        return (Service(configuration: configuration, transport: transport), transport)
    }

    /// Seconds for `count` GETs through `service`; a failed request is counted in `lost`.
    private static func batch(_ service: Service, url: String, count: Int, inFlight: Int, lost: Tally) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) {
            do {
                let json = try await service.send(Request(url: url, parser: JSONParser()))
                guard json["ok"] == true else { throw BenchError.wrongAnswer }
            } catch {
                lost.add()
            }
        }
    }

    private static func label(_ inFlight: Int) -> String {
        inFlight == 1 ? "sequential" : "\(inFlight) in flight"
    }
}

/// A count that concurrent requests add to.
final class Tally: Sendable {
    private let count = Protected(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

extension BareAsyncHTTPClient {
    /// GET of the rotating server's hello, checked like the kit's.
    func hello(_ url: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok,
              let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              object["ok"] as? Bool == true else { throw BenchError.wrongAnswer }
    }
}
