import FixtureServer
import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Service versus a bare URLSession doing the same requests and the same `JSONSerialization`.
struct NetworkBenchmarks {
    let server: FixtureServer
    let count = 2_000
    let rounds = 7

    func run() async throws {
        let url = server.url("/json/small")
        let service = Service(configuration: ServiceConfiguration(callbackQueue: DispatchQueue(label: "bench.callbacks")))
        let raw = RawClient(session: URLSession(configuration: .default))
        // Warm both up: connections, JIT-free but lazy Foundation state.
        _ = try await serviceBatch(service, url: url, count: 200, inFlight: 16)
        _ = try await raw.batch(url: url, count: 200, inFlight: 16)
        for inFlight in [1, 16] {
            var rounds: [(service: Double, raw: Double)] = []
            for _ in 0..<self.rounds {
                rounds.append(try await interleavedRound(service, raw, url: url, inFlight: inFlight))
            }
            // The round with the median ratio stands for the run.
            let median = rounds.sorted { $0.service / $0.raw < $1.service / $1.raw }[rounds.count / 2]
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            print(String(format: "json GET x%d %@: Service %.1f ms (%.0f req/s), raw URLSession %.1f ms (%.0f req/s), ratio %.2f",
                         count, label, median.service * 1000, Double(count) / median.service,
                         median.raw * 1000, Double(count) / median.raw, median.service / median.raw))
        }
    }

    /// `count` requests each way, in blocks that alternate between Service and raw (and which
    /// goes first), so both meet the same machine: a busy second hits both, not one.
    private func interleavedRound(
        _ service: Service, _ raw: RawClient, url: String, inFlight: Int
    ) async throws -> (service: Double, raw: Double) {
        let blocks = 10
        let perBlock = count / blocks
        var serviceTotal = 0.0
        var rawTotal = 0.0
        for block in 0..<blocks {
            if block.isMultiple(of: 2) {
                serviceTotal += try await serviceBatch(service, url: url, count: perBlock, inFlight: inFlight)
                rawTotal += try await raw.batch(url: url, count: perBlock, inFlight: inFlight)
            } else {
                rawTotal += try await raw.batch(url: url, count: perBlock, inFlight: inFlight)
                serviceTotal += try await serviceBatch(service, url: url, count: perBlock, inFlight: inFlight)
            }
        }
        return (serviceTotal, rawTotal)
    }

    /// Sequential requests of one kind only, for a profiler: `NK_BENCH_PROFILE=service|raw`.
    func profile(_ mode: String) async throws {
        let url = server.url("/json/small")
        let seconds: Double
        if mode == "raw" {
            seconds = try await RawClient(session: URLSession(configuration: .default)).batch(url: url, count: 6_000, inFlight: 1)
        } else {
            let timeout = Double(ProcessInfo.processInfo.environment["NK_BENCH_TIMEOUT"] ?? "") ?? 15
            let service = Service(configuration: ServiceConfiguration(timeout: timeout, callbackQueue: DispatchQueue(label: "bench.callbacks")))
            seconds = try await serviceBatch(service, url: url, count: 6_000, inFlight: 1)
        }
        print(String(format: "%@: 6000 sequential GETs in %.1f ms", mode, seconds * 1000))
    }

    private func serviceBatch(_ service: Service, url: String, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) {
            let json = try await service.send(Request(url: url, parser: JSONParser()))
            guard json["code"] == 0 else { throw BenchError.wrongAnswer }
        }
    }
}

/// The baseline: a completion-handler data task and `JSONSerialization`, nothing else.
struct RawClient: Sendable {
    let session: URLSession

    func get(_ url: URL) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            session.dataTask(with: url) { data, response, error in
                do {
                    if let error { throw error }
                    guard let data, (response as? HTTPURLResponse)?.statusCode == 200,
                          let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                          object["code"] as? Int == 0 else { throw BenchError.wrongAnswer }
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }.resume()
        }
    }

    func batch(url: String, count: Int, inFlight: Int) async throws -> Double {
        guard let target = URL(string: url) else { throw BenchError.wrongAnswer }
        return try await timed(count: count, inFlight: inFlight) { try await get(target) }
    }
}

/// Runs `operation` `count` times with at most `inFlight` at once; returns seconds.
func timed(count: Int, inFlight: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<count {
            if index >= inFlight { try await group.next() }
            group.addTask { try await operation() }
        }
        try await group.waitForAll()
    }
    return (ContinuousClock.now - start).milliseconds / 1000
}

enum BenchError: Error {
    case wrongAnswer
}

