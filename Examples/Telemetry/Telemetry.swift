import Foundation
import NetworkKit
import NetworkKitNIO
import OTel
import ServiceLifecycle

/// Bootstraps swift-otel as the process's tracer and metrics backend, exporting spans and metrics
/// as OTLP/HTTP with JSON bodies to `collector` (`/v1/traces`, `/v1/metrics`), and returns the
/// service that exports them: run it in the app's `ServiceGroup`; its graceful shutdown exports
/// what is left. Call it once per process, before the first request.
public func bootstrapTelemetry(collector: URL, serviceName: String) throws -> some ServiceLifecycle.Service {
    var configuration = OTel.Configuration.default
    configuration.serviceName = serviceName
    configuration.logs.enabled = false
    configuration.traces.otlpExporter.endpoint = collector.appendingPathComponent("v1/traces").absoluteString
    configuration.traces.otlpExporter.protocol = .httpJSON
    configuration.metrics.otlpExporter.endpoint = collector.appendingPathComponent("v1/metrics").absoluteString
    configuration.metrics.otlpExporter.protocol = .httpJSON
    return try OTel.bootstrap(configuration: configuration)
}

/// The app's one request: `GET /status` on `server`, through `NIOTransport`, retried once after
/// a `503`. Nothing here mentions tracing: the `Observability` trait and the bootstrapped tracer
/// are all it takes.
public func fetchStatus(from server: URL) async throws(NetworkError) -> JSON {
    let service = NetworkKit.Service(configuration: ServiceConfiguration(baseURL: server), transport: NIOTransport())
    let request = Request(path: "/status", parser: JSONParser())
    request.interceptors = [RetryPolicy(maxRetries: 1, backoff: Backoff(initial: .milliseconds(10)))]
    return try await service.send(request)
}
