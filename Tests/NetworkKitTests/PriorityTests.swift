import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// Priorities and the limits on requests in flight, against the fixture server's held answers
/// (`/held/{gate}`), on both transports.
@Suite("Priority and requests in flight")
struct PriorityTests {
    /// Waits until exactly `count` requests wait at the service's gate (at most 10 s): more as
    /// requests begin to wait, fewer as cancelled ones withdraw (from their wait's task).
    private static func waitUntil(_ service: Service, hasWaiting count: Int) async throws {
        for _ in 0..<1000 where service.inFlight.waitingCount != count {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(service.inFlight.waitingCount == count, "\(service.inFlight.waitingCount) of \(count) requests wait")
    }

    /// A fixture whose service has `limits`, with a request the server holds in flight until
    /// `open(_:on:)` opens its gate.
    private static func holding(_ transport: TransportKind, limits: (inout ServiceConfiguration) -> Void) async throws
        -> (fixture: Fixture, gate: String, held: Request<JSON>) {
        let fixture = try await Fixture.start(transport: transport)
        fixture.service.configure(limits)
        let gate = "held-\(UUID().uuidString)"
        let held = Request(path: "/held/\(gate)", parser: JSONParser())
        // Held until the test opens the gate, however slowly a loaded machine gets there: no idle
        // timeout of the fixture's 15 s (the server lets go after 60 s at the latest).
        held.timeout = .seconds(120)
        fixture.service.start(held)
        try await waitUntilSent(held)
        return (fixture, gate, held)
    }

    /// Waits until `request` holds its place in flight (at most 10 s).
    private static func waitUntilSent(_ request: AnyRequest) async throws {
        for _ in 0..<1000 where request.attemptCount == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(request.attemptCount == 1, "the held request was not sent")
    }

    /// Opens the fixture's gate `gate`, with a request that no limit holds back.
    private static func open(_ gate: String, on server: FixtureServer) async throws {
        _ = try await Service(configuration: ServiceConfiguration(baseURL: server.baseURL))
            .send(Request(path: "/gates/\(gate)", method: .post))
    }

    @Test("with a limit of 1 and ten queued requests, the high ones go first", arguments: TransportKind.allCases)
    func highFirst(transport: TransportKind) async throws {
        let (fixture, gate, held) = try await Self.holding(transport) { $0.maxRequestsInFlight = 1 }
        defer { fixture.server.stop() }
        let priorities: [RequestPriority] = [.low, .normal, .high, .veryLow, .veryHigh, .normal, .high, .low, .veryHigh, .normal]
        let finished = Recorder<Int>()
        var queued: [Request<JSON>] = []
        for (index, priority) in priorities.enumerated() {
            let request = Request(path: "/json/small?index=\(index)", parser: JSONParser())
            request.priority = priority
            request.addCompletionHandler { _, _ in finished.append(index) }
            fixture.service.start(request)
            queued.append(request)
        }
        try await Self.waitUntil(fixture.service, hasWaiting: priorities.count)
        try await Self.open(gate, on: fixture.server)
        _ = try await fixture.service.completion(of: held).get()
        for request in queued { _ = await fixture.service.completion(of: request) }
        let order = finished.all.map { priorities[$0] }
        #expect(order == priorities.sorted(by: >), "finished in the order \(order)")
        // Equal priorities keep their order of arrival.
        #expect(finished.all.filter { priorities[$0] == .normal } == [1, 5, 9])
    }

    @Test("per host: a held host does not hold up another", arguments: TransportKind.allCases)
    func perHost(transport: TransportKind) async throws {
        let (fixture, gate, _) = try await Self.holding(transport) { $0.maxRequestsInFlightPerHost = 1 }
        defer { fixture.server.stop() }
        let sameHost = Request(path: "/json/small", parser: JSONParser())
        fixture.service.start(sameHost)
        try await Self.waitUntil(fixture.service, hasWaiting: 1)
        // The same server by another name: its own host, with room.
        let otherHost = try #require(URL(string: "http://localhost:\(fixture.server.port)/json/small"))
        _ = try await fixture.service.send(Request(url: otherHost, parser: JSONParser()))
        #expect(sameHost.state == .running && fixture.service.inFlight.waitingCount == 1)
        try await Self.open(gate, on: fixture.server)
        _ = try await fixture.service.completion(of: sameHost).get()
    }

    @Test("a request cancelled while it waits finishes cancelled and takes no place", arguments: TransportKind.allCases)
    func cancelWhileWaiting(transport: TransportKind) async throws {
        let (fixture, gate, _) = try await Self.holding(transport) { $0.maxRequestsInFlight = 1 }
        defer { fixture.server.stop() }
        let cancelled = Request(path: "/json/small", parser: JSONParser())
        let next = Request(path: "/json/small", parser: JSONParser())
        fixture.service.start(cancelled)
        try await Self.waitUntil(fixture.service, hasWaiting: 1)
        fixture.service.start(next)
        try await Self.waitUntil(fixture.service, hasWaiting: 2)
        cancelled.cancel()
        let result = await fixture.service.completion(of: cancelled)
        guard case .cancelled = result.failure else { Issue.record("got \(result)"); return }
        #expect(cancelled.attemptCount == 0)
        try await Self.waitUntil(fixture.service, hasWaiting: 1)
        try await Self.open(gate, on: fixture.server)
        _ = try await fixture.service.completion(of: next).get()
        #expect(fixture.service.inFlight.waitingCount == 0)
    }

    @Test("URLSessionTransport gives the priority to its task")
    func urlSessionTaskPriority() throws {
        let transport = URLSessionTransport(configuration: .default, delegateQueue: DispatchQueue(label: "tests.priority"))
        defer { transport.finishAndInvalidate() }
        for priority in RequestPriority.allCases {
            let request = try OutgoingRequest(url: try #require(URL(string: "http://127.0.0.1:9/")))
            let started = transport.start(request, priority: priority, events: IgnoredEvents())
            let task = try #require(started as? URLSessionTransportTask)
            #expect(task.task.priority == priority.urlSessionPriority)
            task.cancel()
        }
    }
}

/// Events no one listens to.
private final class IgnoredEvents: TransportEvents {
    func transportDidSend(bytes: Int64, of total: Int64?) {}
    func transportDidReceive(head: ResponseHead) {}
    func transportDidReceive(chunk: Data) {}
    func transportDidComplete(failure: NetworkError?) {}
}
