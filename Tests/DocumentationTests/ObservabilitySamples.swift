#if Observability
import CoreMetrics
import Foundation
import InMemoryTracing
import NetworkKit
import Tracing

// MARK: - Observing requests

func bootstrapTelemetry(tracer: some Tracer, metrics: some MetricsFactory) {
    InstrumentationSystem.bootstrap(tracer)
    MetricsSystem.bootstrap(metrics)
}

func sendInASpan(_ service: Service) async throws -> JSON {
    let feed = try await withSpan("load the feed") { _ in
        try await service.send(Request(path: "/feed", parser: JSONParser()))
    }
    return feed
}

func recordInATest(_ service: Service) async throws -> [FinishedInMemorySpan] {
    let tracer = InMemoryTracer()
    _ = try await withTracer(tracer) {
        try await service.send(Request(path: "/feed", parser: JSONParser()))
    }
    let transfers = tracer.finishedSpans.filter { $0.kind == .client }
    return transfers
}
#endif
