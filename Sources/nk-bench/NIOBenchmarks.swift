import AsyncHTTPClient
import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
import NIOCore

/// The SwiftNIO transport: NetworkKit on `NIOTransport` against a bare AsyncHTTPClient doing the
/// same GET and the same `JSONSerialization` (the ratio that counts), and against NetworkKit on
/// URLSession (the speed-up), sequential and at 16 and 64 in flight, interleaved in one run.
struct NIOBenchmarks {
    let server: FixtureServer
    let count = 2_000
    /// Seven: on two cores one round's ratio differs from the next by up to about ±0.04, and a
    /// median of five moved by as much from run to run.
    let rounds = 7

    func run() async throws {
        let url = server.url("/json/small")
        let network = NetworkBenchmarks(server: server)
        let nio = Service(configuration: ServiceConfiguration(callbackQueue: DispatchQueue(label: "bench.nio")),
                          transport: NIOTransport())
        let urlSession = Service(configuration: ServiceConfiguration(callbackQueue: DispatchQueue(label: "bench.urlsession")))
        let bare = BareAsyncHTTPClient()
        defer { bare.shutdown() }
        for inFlight in [1, 16, 64] {
            let clients: [(Int, Int) async throws -> Double] = [
                { try await network.serviceBatch(nio, url: url, count: $0, inFlight: $1) },
                { try await bare.batch(url: url, count: $0, inFlight: $1) },
                { try await network.serviceBatch(urlSession, url: url, count: $0, inFlight: $1) },
            ]
            for client in clients { _ = try await client(200, inFlight) }
            let seconds = try await interleavedMedian(count: count, rounds: rounds, inFlight: inFlight, clients)
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            print(String(format: "json GET x%d %@: NetworkKit on NIO %.0f req/s, bare AsyncHTTPClient %.0f req/s, "
                         + "NetworkKit on URLSession %.0f req/s; ratio NIO/bare %.2f; speed-up over URLSession %.2fx",
                         count, label, Double(count) / seconds[0], Double(count) / seconds[1], Double(count) / seconds[2],
                         seconds[0] / seconds[1], seconds[2] / seconds[0]))
        }
    }
}

/// The baseline: AsyncHTTPClient's own async API, the whole body collected, `JSONSerialization`.
final class BareAsyncHTTPClient: Sendable {
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)

    func get(_ url: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok,
              let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
              object["code"] as? Int == 0 else { throw BenchError.wrongAnswer }
    }

    func batch(url: String, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) { try await self.get(url) }
    }

    func shutdown() {
        client.shutdown { _ in }
    }
}
