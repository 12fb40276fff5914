import Foundation
import Hummingbird
import Logging
import NetworkKit
import ServiceLifecycle
import TelemetryExample
import Testing

/// The example end to end: an OTLP/HTTP receiver and the example's server in one Hummingbird
/// application on 127.0.0.1, swift-otel bootstrapped to export to it, one request that meets a
/// `503` and is retried, then the exporter's graceful shutdown, which sends what is left. The
/// tracer and metrics backend it bootstraps are the process's, and would export the requests of
/// tests running beside it: run it in a process of its own (`swift test --filter
/// TelemetryExampleTests`, as scripts/test-examples does).
@Suite struct TelemetryExampleTests {
    @Test func aRetriedRequestIsOneSpanWithAClientSpanPerAttemptAndEachAttemptCarriesItsTraceparent() async throws {
        let received = Received()
        let server = try await Receiver.start(received)
        defer { server.stop() }

        let telemetry = try bootstrapTelemetry(collector: server.url, serviceName: "telemetry-example")
        let exporting = ServiceGroup(configuration: .init(services: [telemetry], logger: Logger(label: "otel")))
        let exporter = Task { try await exporting.run() }
        let status = try await fetchStatus(from: server.url)
        #expect(status["ok"] == true)
        await exporting.triggerGracefulShutdown()
        try await exporter.value

        let spans = try received.spans().filter { $0.name == "GET" }
        let request = try #require(spans.first { $0.kind == .internal })
        let attempts = spans.filter { $0.kind == .client }
        #expect(spans.count == 3)
        #expect(request.parentSpanID == nil)
        #expect(request.attributes["http.response.status_code"] == "200")
        #expect(request.attributes["http.request.resend_count"] == "1")
        #expect(attempts.map { $0.attributes["http.response.status_code"] } == ["503", "200"])
        #expect(attempts.allSatisfy { $0.parentSpanID == request.spanID && $0.traceID == request.traceID })
        #expect(attempts.first?.attributes["error.type"] == "503")
        #expect(attempts.last?.attributes["network.protocol.version"] == "1.1")

        // The server heard each attempt's own span as its parent, in W3C's header.
        #expect(received.traceparents == attempts.map { "00-\($0.traceID)-\($0.spanID)-01" })
        #expect(try received.metricNames().contains("networkkit.requests"))
    }
}

/// What the receiver got: the exporter's bodies, and the `traceparent` of each `/status` request.
final class Received: @unchecked Sendable {
    // `@unchecked Sendable`: every stored property is read and written under `lock` only.
    private let lock = NSLock()
    private var traceBodies: [Data] = []
    private var metricBodies: [Data] = []
    private var statusHeaders: [String] = []

    func add(traces: Data) { lock.withLock { traceBodies.append(traces) } }
    func add(metrics: Data) { lock.withLock { metricBodies.append(metrics) } }
    /// Records a `/status` request's `traceparent`; returns how many came so far.
    func status(traceparent: String?) -> Int {
        lock.withLock {
            statusHeaders.append(traceparent ?? "none")
            return statusHeaders.count
        }
    }
    var traceparents: [String] { lock.withLock { statusHeaders } }

    /// Every span of every trace export, in the order exported.
    func spans() throws -> [ExportedSpan] {
        try lock.withLock { traceBodies }.flatMap { body -> [ExportedSpan] in
            let root = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            let resources = root["resourceSpans"] as? [[String: Any]] ?? []
            let scopes = resources.flatMap { $0["scopeSpans"] as? [[String: Any]] ?? [] }
            return scopes.flatMap { $0["spans"] as? [[String: Any]] ?? [] }.map(ExportedSpan.init)
        }
    }

    /// The names of the metrics of every metrics export.
    func metricNames() throws -> Set<String> {
        var names = Set<String>()
        for body in lock.withLock({ metricBodies }) {
            let root = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            for resource in root["resourceMetrics"] as? [[String: Any]] ?? [] {
                for scope in resource["scopeMetrics"] as? [[String: Any]] ?? [] {
                    for metric in scope["metrics"] as? [[String: Any]] ?? [] {
                        if let name = metric["name"] as? String { names.insert(name) }
                    }
                }
            }
        }
        return names
    }
}

/// A span as OTLP/JSON carries it, with its IDs in lower-case hex as `traceparent` writes them.
struct ExportedSpan {
    enum Kind { case `internal`, client, other }

    let traceID: String
    let spanID: String
    let parentSpanID: String?
    let name: String
    let kind: Kind
    /// Each attribute's value as text (`intValue` and `stringValue` alike).
    let attributes: [String: String]

    init(_ span: [String: Any]) {
        traceID = Self.hex(span["traceId"])
        spanID = Self.hex(span["spanId"])
        let parent = Self.hex(span["parentSpanId"])
        parentSpanID = parent.isEmpty ? nil : parent
        name = span["name"] as? String ?? ""
        switch "\(span["kind"] ?? "")" {
        case "1", "SPAN_KIND_INTERNAL": kind = .internal
        case "3", "SPAN_KIND_CLIENT": kind = .client
        default: kind = .other
        }
        var attributes: [String: String] = [:]
        for attribute in span["attributes"] as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any],
                  let first = value.values.first else { continue }
            attributes[key] = "\(first)"
        }
        self.attributes = attributes
    }

    /// An ID as hex: OTLP/JSON writes hex; protobuf's own JSON mapping writes base64.
    static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count % 16 == 0, text.allSatisfy(\.isHexDigit) { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// The receiver and the example's server: `POST /v1/traces` and `/v1/metrics` keep the body;
/// `GET /status` answers `503` the first time and `{"ok": true}` after.
struct Receiver {
    let url: URL
    let group: ServiceGroup

    static func start(_ received: Received) async throws -> Receiver {
        let router = Router()
        router.post("v1/traces") { request, _ -> Response in
            received.add(traces: Data(buffer: try await request.body.collect(upTo: 64 << 20)))
            return json("{}")
        }
        router.post("v1/metrics") { request, _ -> Response in
            received.add(metrics: Data(buffer: try await request.body.collect(upTo: 64 << 20)))
            return json("{}")
        }
        router.get("status") { request, _ -> Response in
            let traceparent = request.headers.first { $0.name.canonicalName == "traceparent" }?.value
            return received.status(traceparent: traceparent) == 1 ? Response(status: .serviceUnavailable) : json(#"{"ok": true}"#)
        }
        var logger = Logger(label: "receiver")
        logger.logLevel = .critical
        let (ports, port) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  port.yield(channel.localAddress?.port ?? 0)
                                  port.finish()
                              }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        Task { try await group.run() }
        var bound = 0
        for await value in ports { bound = value }
        let url = try #require(URL(string: "http://127.0.0.1:\(bound)"))
        return Receiver(url: url, group: group)
    }

    func stop() {
        let group = self.group
        Task { await group.triggerGracefulShutdown() }
    }

    private static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
