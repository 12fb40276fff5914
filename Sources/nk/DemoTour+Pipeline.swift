import FixtureServer
import Foundation
import NetworkKit
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `nk demo`: the request pipeline's hooks — interceptors, retries, monitors, token refresh,
/// environments, envelope keys, cURL commands.
extension DemoTour {
    var pipelineSteps: [Step] {
        [
            ("Interceptors: one adds a header, a retry policy retries an endpoint that fails twice", {
                let request = Request(path: "/flaky/demo-\(UUID().uuidString)?failures=2&status=503", parser: JSONParser())
                request.interceptors = [DemoHeader(), RetryPolicy(maxRetries: 3, backoff: Backoff(initial: .milliseconds(20)))]
                let reply = try await service.reply(to: request)
                return "503, 503, then \(reply.status.code): answered on attempt \(reply.metrics.attempts) (hit \(reply.value["hit"] ?? nil))"
            }),
            ("Basic authentication: credentials with the first attempt; stale ones are asked for again after the challenge", {
                let first = Request(path: "/basic-auth/ann/s3cret", parser: JSONParser(contentKeyPath: "user"))
                first.interceptors = [BasicAuthentication(user: "ann", password: "s3cret")]
                let user = try await service.send(first)
                let asked = DemoCounter()
                let stale = Request(path: "/basic-auth/ann/s3cret", parser: JSONParser(contentKeyPath: "user"))
                stale.interceptors = [BasicAuthentication {
                    BasicCredentials(user: "ann", password: asked.next() == 1 ? "old" : "s3cret")
                }]
                _ = try await service.send(stale)
                return "user \(user) on attempt \(first.attemptCount); with a stale password: 401 (Basic challenge), "
                    + "then 200 on attempt \(stale.attemptCount)"
            }),
            ("Priority: one request in flight at a time; five queued behind it go most important first", {
                var configuration = service.configuration
                configuration.maxRequestsInFlight = 1
                let limited = Service(configuration: configuration)
                let gate = "demo-\(UUID().uuidString)"
                let held = Request(path: "/held/\(gate)", parser: JSONParser())
                limited.start(held)
                try await DemoWait.until { held.attemptCount == 1 }
                let priorities: [RequestPriority] = [.low, .normal, .veryHigh, .veryLow, .high]
                let order = Protected<[RequestPriority]>([])
                let queued = priorities.map { priority in
                    let request = Request(path: "/json/small", parser: JSONParser())
                    request.priority = priority
                    request.addCompletionHandler { _, _ in order.withLock { $0.append(priority) } }
                    limited.start(request)
                    return request
                }
                try await DemoWait.until { limited.waitingRequestCount == priorities.count }
                _ = try await service.send(Request(path: "/gates/\(gate)", method: .post))
                _ = try await limited.send(held)
                for request in queued { _ = try await limited.completion(of: request).get() }
                return "queued " + priorities.map(\.description).joined(separator: ", ")
                    + " → sent " + order.snapshot.map(\.description).joined(separator: ", ")
            }),
            ("An event monitor sees every step of a request", {
                let events = DemoEventLog()
                var configuration = service.configuration
                configuration.eventMonitors = [events]
                _ = try await Service(configuration: configuration).send(Request(path: "/json/small", parser: JSONParser()))
                return events.lines.joined(separator: " → ")
            }),
            ("Token refresh: 5 concurrent requests with an expired token share one refresh", {
                let refreshes = Protected(0)
                let tokens = TokenRefresher(token: "expired") {
                    refreshes.withLock { $0 += 1 }
                    try await Task.sleep(for: .milliseconds(50))
                    return FixtureServer.freshToken
                }
                var configuration = service.configuration
                configuration.interceptors = [tokens]
                let authorized = Service(configuration: configuration)
                let users = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<5 {
                        group.addTask { try await authorized.send(Request(path: "/protected", parser: JSONParser(contentKeyPath: "data/user"))).stringValue ?? "" }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                return "\(users.count) × 401 then 200 as \(users.first ?? "?"); refreshes: \(refreshes.snapshot)"
            }),
            ("Environments: switch servers at runtime", {
                var configuration = service.configuration
                configuration.environments = [
                    ServiceEnvironment(name: "production", baseURL: server.baseURL),
                    ServiceEnvironment(name: "staging", baseURL: URL(string: "http://localhost:\(server.port)")),
                ]
                configuration.environment = configuration.environments[0]
                let switching = Service(configuration: configuration)
                let before = try await switching.send(Request(path: "/echo", parser: JSONParser(contentKeyPath: "host")))
                switching.useEnvironment(named: "staging")
                let after = try await switching.send(Request(path: "/echo", parser: JSONParser(contentKeyPath: "host")))
                return "production → \(before), staging → \(after)"
            }),
            ("Envelope keys set once for the service; a JSON shape checked", {
                var configuration = service.configuration
                configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content")
                let enveloped = Service(configuration: configuration)
                let shape: JSONShape = ["entrance": [["name": .string, "type": .integer]]]
                let content = try await enveloped.send(Request(path: "/json/feed", parser: JSONParser(shape: shape)))
                return "code checked, content/entrance has \(content["entrance"]?.arrayValue?.count ?? 0) entries of the right shape"
            }),
            ("The cURL command of a request as it will be sent, secrets hidden", {
                let request = Request(path: "/echo", method: .post, parameters: ["name": "ann"],
                                      headerFields: [.authorization: "Bearer s3cret"], parser: JSONParser())
                request.interceptors = [DemoHeader()]
                return try await service.curlCommand(for: request)
            }),
        ]
    }
}

/// Adds `X-Demo: nk` to every attempt.
struct DemoHeader: RequestInterceptor {
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[.demo] = "nk"
        return request
    }
}

/// Keeps the names of the events it hears.
final class DemoEventLog: EventMonitor {
    private let events = Protected<[String]>([])
    var lines: [String] { events.snapshot }

    func requestDidStart(_ id: RequestID, target: String, method: HTTPRequest.Method) { add("started \(method.rawValue) \(target)") }
    func request(_ id: RequestID, didAdapt request: OutgoingRequest, attempt: Int) { add("adapted") }
    func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) { add("sent") }
    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) { add("head \(head.status.code)") }
    func request(_ id: RequestID, didParseIn duration: Duration, succeeded: Bool) { add("parsed") }
    func requestDidFinish(_ metrics: RequestMetrics) { add("finished (\(metrics.bytesReceived) B)") }

    private func add(_ event: String) { events.withLock { $0.append(event) } }
}

/// Waits in the demo's steps.
enum DemoWait {
    /// Returns once `condition` holds; throws after 10 s.
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DemoError.unexpected("a condition did not hold within 10 s")
    }
}

/// Counts calls, from any thread.
final class DemoCounter: Sendable {
    private let count = Mutex(0)

    /// One more; returns the count so far.
    func next() -> Int {
        count.withLock { $0 += 1; return $0 }
    }
}

extension HTTPField.Name {
    /// `X-Demo`, which ``DemoHeader`` adds.
    static var demo: Self { Self("X-Demo")! }
}
