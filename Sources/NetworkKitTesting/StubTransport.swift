import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A programmable in-memory transport for the tests of an app built on NetworkKit: it answers
/// requests from the answers it was given, without a server, and records every request it
/// received.
///
///     let stub = StubTransport()
///     stub.answer(.get, .path("/feed"), with: .json(#"{"code": 0, "content": []}"#))
///     let service = Service(configuration: configuration, transport: stub)
///
/// Each request is matched against the answers in the order they were added, and the first
/// whose method and ``RequestPattern`` fit plays its ``StubResponse``; a request that none fits
/// fails with an ``UnmatchedRequest``. It honours the `Transport` contract as the real
/// transports do: upload progress for a body, the head once (a redirect's too: the kit follows
/// it), the chunks in order as they would cross the wire (the kit inflates content-encoded
/// ones), and exactly one completion, also after `cancel()` (`NetworkError.cancelled`).
/// Delays run on the clock it was given, and so does the request's idle timeout: the stub fails
/// a wait as long as the request's `timeout` or longer with a `.timedOut` failure at that interval, by
/// the rule the kit's own idle watch applies, so on a test clock timeouts are as instant as delays.
public final class StubTransport: Transport {
    private let routes = Protected<[StubRoute]>([])
    private let received = Protected<[RecordedRequest]>([])
    private let unmatched = Protected<[RecordedRequest]>([])
    private let invalidated = Protected(false)
    let sleep: @Sendable (Duration) async throws -> Void

    /// A stub with no answers whose delays and timeouts pass on `clock` (a test clock makes
    /// them instant or stepped by hand). Give the service's `ServiceConfiguration.clock` the same
    /// clock to put its retry delays on that timeline too.
    public init(clock: any Clock<Duration> = ContinuousClock()) {
        sleep = { duration in try await Self.sleep(on: clock, for: duration) }
    }

    private static func sleep<C: Clock<Duration>>(on clock: C, for duration: Duration) async throws {
        try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
    }

    // MARK: Answers

    /// Answers requests with `method` (any when nil) that fit `pattern` by calling `responder`
    /// with each one, as it arrives.
    public func answer(_ method: HTTPRequest.Method?, _ pattern: RequestPattern,
                       responder: @escaping @Sendable (RecordedRequest) -> StubResponse) {
        routes.withLock { $0.append(StubRoute(method: method, pattern: pattern, responder: responder)) }
    }

    /// Answers requests with `method` (any when nil) that fit `pattern` with `response`.
    public func answer(_ method: HTTPRequest.Method?, _ pattern: RequestPattern, with response: StubResponse) {
        answer(method, pattern) { _ in response }
    }

    /// Answers requests with `method` (any when nil) that fit `pattern` with `responses` in turn,
    /// the last one again once all were played (`[.failure(…), .json(…)]` for a retry); an empty
    /// list answers 404.
    public func answer(_ method: HTTPRequest.Method?, _ pattern: RequestPattern, with responses: [StubResponse]) {
        let played = Protected(0)
        answer(method, pattern) { _ in
            let index = played.withLock { count in
                defer { count += 1 }
                return min(count, responses.count - 1)
            }
            return responses.indices.contains(index) ? responses[index] : StubResponse(status: 404)
        }
    }

    /// Forgets every answer and every recorded request.
    public func reset() {
        routes.withLock { $0.removeAll() }
        received.withLock { $0.removeAll() }
        unmatched.withLock { $0.removeAll() }
    }

    // MARK: What was received

    /// Every request received so far, in order, redirected ones included.
    public var requests: [RecordedRequest] {
        received.snapshot
    }

    /// The requests received so far with `method` (any when nil) that fit `pattern`.
    public func requests(_ method: HTTPRequest.Method? = nil, _ pattern: RequestPattern) -> [RecordedRequest] {
        received.snapshot.filter { StubRoute.fits($0, method: method, pattern: pattern) }
    }

    /// The requests that no answer matched, in order.
    public var unmatchedRequests: [RecordedRequest] {
        unmatched.snapshot
    }

    // MARK: Transport

    /// Starts playing the answer to `request` in a task of its own; its events come from that
    /// task, in order.
    public func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask {
        let transfer = StubTransfer(transport: self, events: events)
        let isInvalidated = invalidated.snapshot
        let task = Task {
            let failure: NetworkError? = if isInvalidated { .cancelled } else { await transfer.run(request) }
            events.transportDidComplete(failure: failure)
        }
        return StubTransportTask(task: task)
    }

    /// Plays the answer to an upgrade as ``start(_:events:)`` plays a request's: a
    /// ``StubResponse/webSocket(subprotocol:headerFields:script:)`` answer opens a connection whose
    /// server's side its script plays, in a task of its own; any other answer refuses the upgrade
    /// with its status, as a server would.
    public func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                               opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask {
        let transfer = StubTransfer(transport: self, events: events)
        let isInvalidated = invalidated.snapshot
        let upgrade = StubTransfer.Upgrade(options: options, opened: opened)
        let task = Task {
            let failure: NetworkError? = if isInvalidated { .cancelled } else { await transfer.run(request, upgrade: upgrade) }
            events.transportDidComplete(failure: failure)
        }
        return StubTransportTask(task: task)
    }

    /// Lets running transfers finish; transfers started afterwards end cancelled.
    public func finishAndInvalidate() {
        invalidated.withLock { $0 = true }
    }

    /// Records `request` and returns its answer, or the error of an unmatched request.
    func receive(_ request: RecordedRequest) -> Result<StubResponse, UnmatchedRequest> {
        received.withLock { $0.append(request) }
        let routes = routes.snapshot
        if let route = routes.first(where: { StubRoute.fits(request, method: $0.method, pattern: $0.pattern) }) {
            return .success(route.responder(request))
        }
        unmatched.withLock { $0.append(request) }
        return .failure(UnmatchedRequest(request: request, answers: routes.map(\.description)))
    }
}

/// One answer of a stub: which requests, and what to answer them.
struct StubRoute: Sendable, CustomStringConvertible {
    let method: HTTPRequest.Method?
    let pattern: RequestPattern
    let responder: @Sendable (RecordedRequest) -> StubResponse

    static func fits(_ request: RecordedRequest, method: HTTPRequest.Method?, pattern: RequestPattern) -> Bool {
        (method.map { $0.rawValue == request.method } ?? true) && pattern.matches(request)
    }

    var description: String {
        "\(method?.rawValue ?? "any method") \(pattern)"
    }
}

/// A transfer of the stub under way.
struct StubTransportTask: TransportTask {
    let task: Task<Void, Never>

    func cancel() {
        task.cancel()
    }
}
