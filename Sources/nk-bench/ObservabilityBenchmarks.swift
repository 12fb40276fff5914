#if Observability
import FixtureServer
import Foundation
import CoreMetrics
import InMemoryTracing
import MetricsTestKit
import NetworkKit
import NetworkKitNIO
import Tracing

/// The `Observability` trait's cost per request, on NIO (`NK_BENCH_ONLY=observability`): two
/// comparisons, each interleaved as a pair on one shared transport, sequential and at 64 in flight.
///
/// - **Recording**: a service whose requests run under an in-memory tracer and metrics backend
///   (bound to the task, as a bootstrapped one is seen) against the same service with neither.
///   `NK_BENCH_OBSERVE=tracing` or `metrics` records only that one; `lean` traces through
///   `LeanTracer` alone (no metrics), which keeps nothing, for the kit's own share of the cost.
/// - **Trait on, nothing bootstrapped**: that service against one with `observesRequests` off,
///   whose requests have no observer: the pipeline runs as it does when the trait is off (no
///   code of the pipeline depends on the trait; only whether an observer exists).
struct ObservabilityBenchmarks {
    let server: FixtureServer
    let count = 2_000
    let rounds = 5

    func run() async throws {
        checkCost()
        let url = server.url("/json/small"), network = NetworkBenchmarks(server: server)
        let recorded = ProcessInfo.processInfo.environment["NK_BENCH_OBSERVE"] ?? "both"
        for inFlight in [1, 64] {
            var recording: [[Double]] = [], idle: [[Double]] = []
            for _ in 0..<rounds {
                let transport = NIOTransport()
                let observed = Service(configuration: ServiceConfiguration(),
                                       transport: transport)
                var quiet = ServiceConfiguration()
                quiet.observesRequests = false
                let unobserved = Service(configuration: quiet, transport: transport)
                let tracer = InMemoryTracer(), lean = LeanTracer(), metrics = TestMetrics()
                let traced: (Int, Int) async throws -> Double = { count, inFlight in
                    defer { tracer.clearAll(); metrics.reset() }
                    let bound: any Tracer = switch recorded {
                    case "metrics": NoOpTracer()
                    case "lean": lean
                    default: tracer
                    }
                    return try await withTracer(bound) {
                        try await withMetricsFactory(recorded == "tracing" || recorded == "lean" ? NOOPMetricsHandler.instance : metrics) {
                            try await network.serviceBatch(observed, url: url, count: count, inFlight: inFlight)
                        }
                    }
                }
                let plain: (Int, Int) async throws -> Double = {
                    try await network.serviceBatch(observed, url: url, count: $0, inFlight: $1)
                }
                let off: (Int, Int) async throws -> Double = {
                    try await network.serviceBatch(unobserved, url: url, count: $0, inFlight: $1)
                }
                for client in [traced, plain, off] { _ = try await client(200, inFlight) }   // opens the connections
                recording.append(try await interleavedRound(count: count, inFlight: inFlight, [traced, plain]))
                idle.append(try await interleavedRound(count: count, inFlight: inFlight, [plain, off]))
            }
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            report("tracing and metrics on / off", label, recording)
            report("trait on, nothing bootstrapped / no observer", label, idle)
        }
    }

    /// What every request pays with the trait on and nothing bootstrapped, apart from the
    /// network's noise: looking for a tracer and a metrics factory other than the no-op ones, as
    /// `Observability.observer(method:)` does before it decides there is nothing to record.
    private func checkCost() {
        let checks = 1_000_000
        var found = 0
        let start = ContinuousClock.now
        for _ in 0..<checks {
            if !(InstrumentationSystem.tracer is NoOpTracer) || !(MetricsSystem.factory is NOOPMetricsHandler) { found += 1 }
        }
        let elapsed = start.duration(to: .now).components
        let nanoseconds = Double(elapsed.seconds) * 1e9 + Double(elapsed.attoseconds) / 1e9
        print(String(format: "observability: the check for a tracer and a metrics factory, nothing bootstrapped: %.0f ns (%d found)",
                     nanoseconds / Double(checks), found))
    }

    private func report(_ name: String, _ label: String, _ rounds: [[Double]]) {
        let median = medianRound(rounds), ratios = rounds.map { $0[0] / $0[1] }
        print(String(format: "observability json GET x%d %@, %@: %.0f / %.0f req/s; ratio %.3f (rounds %.3f to %.3f)",
                     count, label, name, Double(count) / median[0], Double(count) / median[1], median[0] / median[1],
                     ratios.min() ?? 0, ratios.max() ?? 0))
    }
}
#endif
