import AsyncHTTPClient
import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
import NIOCore

/// The SwiftNIO transport: NetworkKit on `NIOTransport` against a bare AsyncHTTPClient doing the
/// same GET and the same `JSONSerialization` (the ratio that counts), and against NetworkKit on
/// URLSession (the speed-up), sequential and at 16 and 64 in flight, interleaved in one run.
///
/// The bare client sends through the transport's own `HTTPClient`, so both sides use the same
/// connections, and each round has a new transport. On two cores, which event loops a client's
/// connections (and the server's ends of them) land on decides its speed: two identical bare
/// clients with pools of their own differ by more than the kit differs from one (BENCHMARKS.md).
/// Sharing the pool takes that out of the ratio; a new pool each round draws the placement
/// again, so the median is over nine draws, not one. (The transport's client has redirects and
/// decompression turned off, which a GET of an uncompressed 200 answer does not use.)
///
/// The two comparisons are interleaved separately, each as a pair. With all three clients in one
/// rotation, the block right after URLSession's (and whatever FoundationNetworking's threads
/// still do then) falls on the kit more often than on the bare client (BENCHMARKS.md).
struct NIOBenchmarks {
    let server: FixtureServer
    let count = 2_000
    /// Nine, each on new connections: the rounds of one run spread widely (it prints the spread).
    let rounds = 9
    /// Rounds of the speed-up over URLSession, which is printed, not bounded.
    let speedUpRounds = 3

    /// The GET every client sends.
    private var url: String { server.url("/json/small") }
    private var network: NetworkBenchmarks { NetworkBenchmarks(server: server) }

    func run() async throws {
        let url = self.url, network = self.network
        // Warmed, like every client, at the start of each round it is in.
        let urlSession = Service(configuration: ServiceConfiguration())
        for inFlight in [1, 16, 64] {
            let againstBare = try await rounds(self.rounds, inFlight: inFlight) { transport in
                let bare = BareAsyncHTTPClient(sharing: transport.client)
                return { try await bare.batch(url: url, count: $0, inFlight: $1) }
            }
            let againstURLSession = try await rounds(speedUpRounds, inFlight: inFlight) { _ in
                { try await network.serviceBatch(urlSession, url: url, count: $0, inFlight: $1) }
            }
            let bare = medianRound(againstBare), speedUp = medianRound(againstURLSession)
            let ratios = againstBare.map { $0[0] / $0[1] }
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            print(String(format: "json GET x%d %@: NetworkKit on NIO %.0f req/s, bare AsyncHTTPClient %.0f req/s, "
                         + "NetworkKit on URLSession %.0f req/s; ratio NIO/bare %.2f (rounds %.2f to %.2f); "
                         + "speed-up over URLSession %.2fx",
                         count, label, Double(count) / bare[0], Double(count) / bare[1], Double(count) / speedUp[1],
                         bare[0] / bare[1], ratios.min() ?? 0, ratios.max() ?? 0, speedUp[1] / speedUp[0]))
        }
    }

    /// `count` rounds of NetworkKit on a new `NIOTransport` against `other` (made for that
    /// transport), interleaved; each client's seconds per round, NetworkKit's first.
    private func rounds(
        _ count: Int, inFlight: Int,
        against other: (NIOTransport) -> (Int, Int) async throws -> Double
    ) async throws -> [[Double]] {
        let url = self.url, network = self.network
        var rounds: [[Double]] = []
        for _ in 0..<count {
            let transport = NIOTransport()
            let nio = Service(configuration: ServiceConfiguration(),
                              transport: transport)
            let clients: [(Int, Int) async throws -> Double] = [
                { try await network.serviceBatch(nio, url: url, count: $0, inFlight: $1) },
                other(transport),
            ]
            // Opens the round's connections before it is timed.
            for client in clients { _ = try await client(200, inFlight) }
            rounds.append(try await interleavedRound(count: self.count, inFlight: inFlight, clients))
        }
        return rounds
    }
}

/// The baseline: AsyncHTTPClient's own async API, the whole body collected, `JSONSerialization`.
final class BareAsyncHTTPClient: Sendable {
    let client: HTTPClient
    /// False when the client is another's (a transport's), which shuts it down.
    private let ownsClient: Bool

    /// A bare client with a client of its own, AsyncHTTPClient's defaults.
    init() {
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        ownsClient = true
    }

    /// A bare client sending through `client` (and its connections).
    init(sharing client: HTTPClient) {
        self.client = client
        ownsClient = false
    }

    func get(_ url: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok,
              let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              object["code"] as? Int == 0 else { throw BenchError.wrongAnswer }
    }

    /// GET of `url`, its whole body collected (up to 64 MiB), unchecked.
    func collect(_ url: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 64 << 20)
    }

    func batch(url: String, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) { try await self.get(url) }
    }

    func shutdown() {
        guard ownsClient else { return }
        client.shutdown { _ in }
    }
}
