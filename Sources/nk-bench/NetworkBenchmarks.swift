import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Service versus a bare URLSession doing the same requests and the same `JSONSerialization`,
/// with the same session configuration.
struct NetworkBenchmarks {
    let server: FixtureServer
    let count = 2_000
    let rounds = 7

    func run() async throws {
        let url = server.url("/json/small")
        let service = Service(configuration: ServiceConfiguration())
        let raw = RawClient.sameSessionAsService()
        for inFlight in [1, 16] {
            // Warm both up in the mode about to be measured: connections, lazy Foundation state.
            // (Warming the sequential phase at 16 in flight leaves 16 idle connections in each
            // pool, and the sequential ratio then reads higher, for a reason not yet known:
            // BENCHMARKS.md.)
            _ = try await serviceBatch(service, url: url, count: 200, inFlight: inFlight)
            _ = try await raw.batch(url: url, count: 200, inFlight: inFlight)
            let median = try await medianRound(inFlight: inFlight,
                                               { try await serviceBatch(service, url: url, count: $0, inFlight: $1) },
                                               { try await raw.batch(url: url, count: $0, inFlight: $1) })
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            print(String(format: "json GET x%d %@: Service %.1f ms (%.0f req/s), raw URLSession %.1f ms (%.0f req/s), ratio %.2f",
                         count, label, median.0 * 1000, Double(count) / median.0,
                         median.1 * 1000, Double(count) / median.1, median.0 / median.1))
        }

        // The pipeline's hooks: three trivial interceptors and an event monitor against none.
        var hooked = ServiceConfiguration()
        hooked.interceptors = [PassThrough(), PassThrough(), PassThrough()]
        hooked.eventMonitors = [CountingMonitor()]
        let hookedService = Service(configuration: hooked)
        _ = try await serviceBatch(hookedService, url: url, count: 200, inFlight: 1)
        let median = try await medianRound(inFlight: 1,
                                           { try await serviceBatch(hookedService, url: url, count: $0, inFlight: $1) },
                                           { try await serviceBatch(service, url: url, count: $0, inFlight: $1) })
        print(String(format: "json GET x%d sequential, 3 interceptors + 1 monitor vs none: %.1f ms vs %.1f ms, ratio %.2f",
                     count, median.0 * 1000, median.1 * 1000, median.0 / median.1))
    }

    /// `rounds` interleaved rounds of `subject` against `baseline`; the round with the median ratio.
    private func medianRound(
        inFlight: Int,
        _ subject: @escaping (Int, Int) async throws -> Double,
        _ baseline: @escaping (Int, Int) async throws -> Double
    ) async throws -> (Double, Double) {
        let seconds = try await interleavedMedian(count: count, rounds: rounds, inFlight: inFlight, [subject, baseline])
        return (seconds[0], seconds[1])
    }

    /// Requests of one kind only, for a profiler: `NK_BENCH_PROFILE=service|raw|nio|ahc|ahc-task`,
    /// sequential unless `NK_BENCH_IN_FLIGHT` says how many at once. `ahc-task` is the bare client
    /// with each request in a task of its own, awaited by the caller: what the kit's transfer task
    /// would cost by itself.
    func profile(_ mode: String) async throws {
        let url = server.url("/json/small")
        let count = Int(ProcessInfo.processInfo.environment["NK_BENCH_COUNT"] ?? "") ?? 6_000
        let inFlight = Int(ProcessInfo.processInfo.environment["NK_BENCH_IN_FLIGHT"] ?? "") ?? 1
        let seconds: Double
        if mode == "raw" {
            seconds = try await RawClient.sameSessionAsService().batch(url: url, count: count, inFlight: inFlight)
        } else if mode == "ahc" {
            let bare = BareAsyncHTTPClient()
            defer { bare.shutdown() }
            seconds = try await bare.batch(url: url, count: count, inFlight: inFlight)
        } else if mode == "ahc-task" {
            let bare = BareAsyncHTTPClient()
            defer { bare.shutdown() }
            seconds = try await timed(count: count, inFlight: inFlight) {
                try await Task { try await bare.get(url) }.value
            }
        } else if mode == "nio" {
            let service = Service(configuration: ServiceConfiguration(),
                                  transport: NIOTransport())
            seconds = try await serviceBatch(service, url: url, count: count, inFlight: inFlight)
        } else {
            let timeout = Double(ProcessInfo.processInfo.environment["NK_BENCH_TIMEOUT"] ?? "") ?? 15
            let service = Service(configuration: ServiceConfiguration(timeout: .seconds(timeout)))
            seconds = try await serviceBatch(service, url: url, count: count, inFlight: inFlight)
        }
        print(String(format: "%@: %d GETs, %d in flight, in %.1f ms", mode, count, inFlight, seconds * 1000))
    }

    func serviceBatch(_ service: Service, url: String, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) {
            let json = try await service.send(Request(url: url, parser: JSONParser()))
            guard json["code"] == 0 else { throw BenchError.wrongAnswer }
        }
    }
}

/// An interceptor that changes nothing, for the cost of the hooks themselves.
struct PassThrough: RequestInterceptor {}

/// A monitor that counts finished requests.
final class CountingMonitor: EventMonitor {
    private let finished = Protected(0)
    func requestDidFinish(_ metrics: RequestMetrics) { finished.withLock { $0 += 1 } }
}

/// The baseline: a completion-handler data task and `JSONSerialization`, nothing else.
struct RawClient: Sendable {
    let session: URLSession

    /// A client whose session has the configuration a `Service` gives its own: `.default`
    /// without a `URLCache`. With the default `URLCache`, FoundationNetworking looks each request
    /// up in the cache's directory on disk before sending it (per request, `strace -c` counted 1
    /// `openat`, 2 `getdents64` and 3 `newfstatat` more), work the service does not do: the
    /// comparison would time the cache, not the kit. (No answer came from that cache: every
    /// request reached the server.)
    static func sameSessionAsService() -> RawClient {
        RawClient(session: URLSession(configuration: URLSessionTransport.sessionConfiguration(.default)))
    }

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
    /// The benchmark needs the package trait it names (`--enable-all-traits`).
    case traitOff(String)
}

