#if Observability
import CoreMetrics
import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import InMemoryTracing
import MetricsTestKit
@testable import NetworkKit
import NetworkKitNIO
import Testing
import Tracing

/// The `Observability` trait against the fixture server, on both transports: each test binds its
/// own in-memory tracer and metrics backend to its task (`withTracer`, `withMetricsFactory`), as
/// a bootstrapped one would be seen, so the tests run side by side. Requests are awaited with
/// `send` or `result(of:)`, which return once the pipeline has finished, its observer included
/// (a completion handler may run before the observer ends the request's span).
@Suite("Observability")
struct ObservabilityTests {
    @Test("a request retried once: its span under the caller's, one client span per attempt, each attempt's context in its headers, signed",
          arguments: TransportKind.allCases)
    func retriedOnce(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let signed = Recorder<[String: String]>()
        fixture.service.configure { $0.signer = HeaderRecordingSigner(signed: signed) }
        let tracer = InMemoryTracer()
        let request = Request(path: "/flaky/observed-\(transport)?failures=1&token=abc", parser: JSONParser())
        request.interceptors = [RetryPolicy(maxRetries: 1, backoff: .init(initial: .milliseconds(1)))]
        let callerSpan = try await withTracer(tracer) {
            try await tracer.withSpan("caller") { span in
                _ = try await fixture.service.send(request)
                return span.context.inMemorySpanContext
            }
        }

        let spans = tracer.finishedSpans
        let requestSpan = try #require(spans.first { $0.kind == .internal && $0.operationName == "GET" })
        #expect(requestSpan.spanContext.parentSpanID == callerSpan?.spanID)
        #expect(requestSpan["http.response.status_code"] == 200)
        #expect(requestSpan["http.request.resend_count"] == 1)
        #expect(requestSpan.events.map(\.name) == ["retry"])
        #expect(requestSpan.status == nil)

        let attempts = spans.filter { $0.kind == .client }
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.spanContext.parentSpanID == requestSpan.spanContext.spanID && $0.operationName == "GET" })
        let (first, second) = (attempts[0], attempts[1])
        #expect(first["http.request.method"] == "GET")
        #expect(first["http.response.status_code"] == 503)
        #expect(first["error.type"] == "503")
        #expect(first.status?.code == .error)
        #expect(first["http.request.resend_count"] == nil)
        #expect(second["http.response.status_code"] == 200)
        #expect(second["error.type"] == nil)
        #expect(second["http.request.resend_count"] == 1)
        #expect(second["server.address"] == "127.0.0.1")
        #expect(second["server.port"] == .int64(Int64(fixture.server.port)))
        if transport == .nio { #expect(second["network.protocol.version"] == "1.1") }   // FoundationNetworking does not say
        let url = try #require(second.text("url.full"))
        #expect(url.hasSuffix("/flaky/observed-\(transport)?failures=1&token=\(Redaction.placeholder)"))

        // Each attempt went out with its own span's context, which the signer saw and signed.
        let headers = signed.all
        #expect(headers.count == 2)
        #expect(headers.map { $0.field(InMemoryTracer.spanIDKey) } == [first.spanID, second.spanID])
        #expect(headers.allSatisfy { $0.field(InMemoryTracer.traceIDKey) == requestSpan.traceID })
    }

    @Test("each redirect is a client span of its own, and the server hears the span of the hop it answers",
          arguments: TransportKind.allCases)
    func redirects(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let tracer = InMemoryTracer()
        let echo = try await withTracer(tracer) {
            try await fixture.service.send(Request(path: "/redirect?to=/echo", parser: JSONParser()))
        }
        let hops = tracer.finishedSpans.filter { $0.kind == .client }
        #expect(hops.map { $0["http.response.status_code"] } == [302, 200])
        #expect(hops.map { $0["http.request.resend_count"] } == [nil, 1])
        #expect(hops[0].status == nil)
        let received = echo["headers"]?.objectValue?.first { $0.key.lowercased() == InMemoryTracer.spanIDKey }
        #expect(received?.value.stringValue == hops[1].spanID)
    }

    @Test("a failure: error.type on the attempt and the request, the error recorded", arguments: TransportKind.allCases)
    func failure(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let (listener, closed) = try LoopbackSocket.bound()
        close(listener)   // nothing listens there now: the connection is refused
        let tracer = InMemoryTracer()
        let result = await withTracer(tracer) {
            await fixture.service.result(of: Request(url: URL(string: "http://127.0.0.1:\(closed)/x")!, parser: DataParser()))
        }
        #expect(result.failure != nil)
        let spans = tracer.finishedSpans
        let attempt = try #require(spans.first { $0.kind == .client })
        let request = try #require(spans.first { $0.kind == .internal })
        #expect(attempt["error.type"] == "transport")
        #expect(request["error.type"] == "transport")
        #expect(request.errors.count == 1)
        #expect(request.status?.code == .error)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("an answer from the cache: the request's span alone, marked as a hit")
    func cacheHit() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        fixture.service.configure { $0.responseCache = ResponseCache(diskCapacity: 0) }
        let tracer = InMemoryTracer()
        try await withTracer(tracer) {
            for _ in 0..<2 {
                let request = Request(path: "/json/small", parser: JSONParser())
                request.cache = CachePolicy(lifetime: .seconds(60))
                _ = try await fixture.service.send(request)
            }
        }
        let requests = tracer.finishedSpans.filter { $0.kind == .internal }
        #expect(requests.map { $0["networkkit.cache"] } == ["miss", "hit"])
        #expect(tracer.finishedSpans.filter { $0.kind == .client }.count == 1)
    }

    @Test("metrics: requests by method, host and status class; duration; bytes; retries; nothing left in flight",
          arguments: TransportKind.allCases)
    func metrics(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let metrics = TestMetrics()
        let request = Request(path: "/flaky/metered-\(transport)?failures=1", parser: JSONParser())
        request.interceptors = [RetryPolicy(maxRetries: 1, backoff: .init(initial: .milliseconds(1)))]
        try await withMetricsFactory(metrics) {
            _ = try await fixture.service.send(request)
            _ = await fixture.service.result(of: Request(path: "/status/404", parser: DataParser()))
        }
        let ok = [("method", "GET"), ("host", "127.0.0.1"), ("status_class", "2xx")]
        #expect(try metrics.expectCounter("networkkit.requests", ok).totalValue == 1)
        #expect(metrics.counterTotal(label: "networkkit.requests", dimensions: [("method", "GET"), ("host", "127.0.0.1"),
                                                                                 ("status_class", "4xx")]) == 1)
        #expect(try metrics.expectTimer("networkkit.request.duration", ok).values.count == 1)
        #expect(try metrics.expectCounter("networkkit.retries", [("method", "GET"), ("host", "127.0.0.1")]).totalValue == 1)
        #expect(metrics.counterTotal(label: "networkkit.bytes.received") > 0)
        let inFlight = try metrics.expectMeter("networkkit.requests.in_flight", [("host", "127.0.0.1")])
        #expect(inFlight.lastValue == 0)
        #expect(inFlight.values.max() == 1)
        #expect(metrics.meters(label: "networkkit.requests.waiting").isEmpty)
    }

    @Test("metrics: a request held back by the limit on requests in flight counts as waiting until it goes")
    func waiting() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        fixture.service.configure { $0.maxRequestsInFlight = 1 }
        let metrics = TestMetrics()
        let gates = Service(configuration: ServiceConfiguration(baseURL: fixture.server.baseURL))
        try await withMetricsFactory(metrics) {
            // Two held answers, one request in flight: whichever goes second waits.
            let held = ["observed-wait-a", "observed-wait-b"]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for gate in held {
                    group.addTask { _ = try await fixture.service.send(Request(path: "/held/\(gate)", parser: DataParser())) }
                }
                while fixture.service.waitingRequestCount == 0 { await Task.yield() }
                for gate in held { _ = try await gates.send(Request(path: "/gates/\(gate)", method: .post, parser: DataParser())) }
                try await group.waitForAll()
            }
        }
        let waiting = try metrics.expectMeter("networkkit.requests.waiting", [("host", "127.0.0.1")])
        #expect(waiting.values == [1, 0])
    }

    @Test("a stream's span lasts its connection and counts its events", arguments: TransportKind.allCases)
    func stream(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let tracer = InMemoryTracer()
        let summary = try await withTracer(tracer) {
            try await fixture.service.send(StreamRequest(path: "/events?count=3", reconnection: .never))
        }
        #expect(summary.itemCount == 3)
        let request = try #require(tracer.finishedSpans.first { $0.kind == .internal })
        #expect(request["networkkit.stream.items"] == 3)
        #expect(request["networkkit.stream.connections"] == 1)
        let connection = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(connection.endInstant.nanosecondsSinceEpoch <= request.endInstant.nanosecondsSinceEpoch)
    }

    @Test("a WebSocket's span lasts its connection and counts its messages; the upgrade is its client span")
    func webSocket() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:\(server.port)")),
                              transport: NIOTransport())
        let tracer = InMemoryTracer()
        let socket = try await withTracer(tracer) { try await service.send(.webSocket(path: "/echo")) }
        let upgrade = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(upgrade["http.response.status_code"] == 101)
        #expect(tracer.finishedSpans.filter { $0.kind == .internal }.isEmpty)   // open while the connection is
        try await socket.send(.text("hello"))
        #expect(try await WebSocketTests.next(socket) == .text("hello"))
        await socket.close(code: 1000)
        let request = try #require(tracer.finishedSpans.first { $0.kind == .internal })
        #expect(request["networkkit.websocket.messages_sent"] == 1)
        #expect(request["networkkit.websocket.messages_received"] == 1)
        #expect(request["networkkit.websocket.close_code"] == 1000)
        #expect(request.status == nil)
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test("streams an HTTP/2 server refused: each resend a client span of its own and an event, counted as a resend")
    func resends() async throws {
        try await ConnectionRotationTests.run(RotatingServer.Behaviour(refuseEvery: 5), resendLimit: 64) { server, rig in
            let tracer = InMemoryTracer(), metrics = TestMetrics()
            try await withTracer(tracer) {
                try await withMetricsFactory(metrics) {
                    _ = try await rig.send(count: 40, inFlight: 8) { id in
                        Request(url: server.url("/rotate/hello?id=\(id)"), parser: JSONParser())
                    }
                }
            }
            let refused = server.counts.refused
            #expect(refused > 0, "the server refused no stream: the test did not test resends")
            let requests = tracer.finishedSpans.filter { $0.kind == .internal }
            let hops = tracer.finishedSpans.filter { $0.kind == .client }
            #expect(requests.count == 40 && hops.count == 40 + refused)
            #expect(requests.flatMap(\.events).filter { $0.name == "resend" }.count == refused)
            for request in requests {
                let own = hops.filter { $0.spanContext.parentSpanID == request.spanID }
                #expect(request["http.request.resend_count"] == (own.count > 1 ? .int64(Int64(own.count - 1)) : nil))
                #expect(own.dropLast().allSatisfy { $0["error.type"] != nil && $0.status?.code == .error })
            }
            #expect(metrics.counterTotal(label: "networkkit.resends") == Int64(refused))
        }
    }

    @Test("a hop's span names the URL the interceptors sent it to")
    func adaptedURL() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let tracer = InMemoryTracer()
        let request = Request(path: "/json/small", parser: DataParser())
        request.interceptors = [QueryAdding()]
        _ = try await withTracer(tracer) { try await fixture.service.send(request) }
        let hop = try #require(tracer.finishedSpans.first { $0.kind == .client })
        #expect(hop.text("url.full")?.hasSuffix("/json/small?added=1") == true)
    }

    @Test("nothing is recorded or sent without a tracer or a metrics factory")
    func nothingWithoutATracer() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let echo = try await fixture.service.send(Request(path: "/echo", parser: JSONParser()))
        #expect(echo["headers"]?.objectValue?.keys.contains { $0.lowercased().hasPrefix("in-memory") } == false)
        #expect(Observability(redaction: .standard).observer(method: .get) == nil)
    }

    @Test("url.full holds no credentials of the URL (sent as Authorization), and hides the service's secret parameters")
    func redaction() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        fixture.service.configure { $0.redaction = Redaction(parameters: ["sig"]) }
        var url = URLComponents(url: fixture.server.baseURL.appendingPathComponent("json/small"), resolvingAgainstBaseURL: false)!
        url.user = "ann"
        url.password = "s3cret"
        url.query = "sig=xyz&page=2"
        let tracer = InMemoryTracer()
        _ = await withTracer(tracer) {
            await fixture.service.result(of: Request(url: url.url!, parser: DataParser()))
        }
        let attempt = try #require(tracer.finishedSpans.first { $0.kind == .client })
        let full = try #require(attempt.text("url.full"))
        #expect(!full.contains("ann") && !full.contains("s3cret") && !full.contains("xyz"))
        #expect(!full.contains("@") && full.contains("sig=\(Redaction.placeholder)&page=2"))
    }
}

extension FinishedInMemorySpan {
    /// The attribute named `key`, as a value that compares.
    fileprivate subscript(_ key: String) -> SpanAttribute? {
        attributes[key]?.toSpanAttribute()
    }

    /// The string attribute named `key`, if it is one.
    fileprivate func text(_ key: String) -> String? {
        guard case .string(let value) = self[key] else { return nil }
        return value
    }
}

extension [String: String] {
    /// The value of header `name`, whatever the case of its name.
    fileprivate func field(_ name: String) -> String? {
        first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// An interceptor that adds a query parameter to each attempt.
private struct QueryAdding: RequestInterceptor {
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        if let url = request.url, let added = URL(string: url.absoluteString + "?added=1") { try request.setURL(added) }
        return request
    }
}

/// A signer that keeps the headers of every request it signs.
private struct HeaderRecordingSigner: RequestSigning {
    let signed: Recorder<[String: String]>

    func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
        signed.append(Dictionary(request.head.headerFields.map { ($0.name.rawName, $0.value) }) { first, _ in first })
        var request = request
        request.head.headerFields[HTTPField.Name("X-Signature")!] = "signed"
        return request
    }
}

#endif
