import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A clock that does not wait: it records each delay asked for and returns at once.
final class RecordingClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant
    private let sleeps = Protected<[Duration]>([])

    var now: Instant { .now }
    var minimumResolution: Duration { .zero }
    var delays: [Duration] { sleeps.snapshot }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        sleeps.withLock { $0.append(Instant.now.duration(to: deadline)) }
        try Task.checkCancellation()
    }
}

/// Adds a header, or fails, in `adapt`.
struct HeaderInterceptor: RequestInterceptor {
    var name: String
    var value: String
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[HTTPField.Name(name)!] = value
        return request
    }
}

struct FailingAdapter: RequestInterceptor {
    struct Refused: Error, Equatable {}
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest { throw Refused() }
}

/// Records every event a monitor hears, as short strings, and wakes whoever waits for one.
final class EventLog: EventMonitor {
    private let events = Protected<[String]>([])
    private let finished = Protected<[RequestMetrics]>([])
    private let waiters = Protected<[(String, CheckedContinuation<Void, Never>)]>([])
    var all: [String] { events.snapshot }
    var metrics: [RequestMetrics] { finished.snapshot }

    /// Returns once `event` has been heard (at once if it was already), or once a request has
    /// finished without it: a test then fails on what it expects instead of waiting for ever.
    func wait(for event: String) async {
        await withCheckedContinuation { continuation in
            let heard = events.withLock { events in
                if events.contains(event) || events.contains("finish") { return true }
                waiters.withLock { $0.append((event, continuation)) }
                return false
            }
            if heard { continuation.resume() }
        }
    }

    func requestDidStart(_ id: RequestID, target: String, method: HTTPRequest.Method) { record("start") }
    func request(_ id: RequestID, didAdapt request: OutgoingRequest, attempt: Int) { record("adapt \(attempt)") }
    func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) { record("send \(attempt)") }
    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) { record("head \(head.status.code)") }
    func request(_ id: RequestID, willFollowRedirect head: ResponseHead, to request: OutgoingRequest, attempt: Int) {
        record("redirect \(head.status.code) \(request.url?.path ?? "-") \(attempt)")
    }
    func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError) { record("retry \(attempt)") }
    func request(_ id: RequestID, didParseIn duration: Duration, succeeded: Bool) { record("parse \(succeeded)") }
    func requestDidFinish(_ metrics: RequestMetrics) {
        finished.withLock { $0.append(metrics) }
        record("finish")
    }

    private func record(_ event: String) {
        let woken = events.withLock { events -> [CheckedContinuation<Void, Never>] in
            events.append(event)
            return waiters.withLock { waiters in
                let wakes = { (waiter: (String, CheckedContinuation<Void, Never>)) in waiter.0 == event || event == "finish" }
                let matching = waiters.filter(wakes).map(\.1)
                waiters.removeAll(where: wakes)
                return matching
            }
        }
        for continuation in woken { continuation.resume() }
    }
}

@Suite("Interceptors, retries and monitors")
struct InterceptorsRetriesAndMonitorsTests {
    let server: FixtureServer
    let clock = RecordingClock()
    let log = EventLog()

    init() async throws {
        server = try await FixtureServer.start()
    }

    func service(_ interceptors: [any RequestInterceptor] = [], transport: TransportKind = .urlSession) -> Service {
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.interceptors = interceptors
        configuration.eventMonitors = [log]
        configuration.clock = clock
        return transport.service(configuration)
    }

    static let noWait = RetryPolicy(maxRetries: 2, backoff: Backoff(initial: .zero, jitter: 0))

    @Test func anAdapterThatThrowsSendsNothing() async throws {
        defer { server.stop() }
        let request = Request(path: "/count/refused", parser: JSONParser())
        let result = await service([FailingAdapter()]).result(of: request)
        guard case .failure(.adaptationFailed(let error)) = result else { Issue.record("got \(result)"); return }
        #expect(error as? FailingAdapter.Refused == FailingAdapter.Refused())
        #expect(server.hits.count("refused") == 0)
        #expect(request.attemptCount == 0 && request.metrics?.attempts == 0)
        #expect(log.all == ["start", "finish"])
    }

    @Test func serviceInterceptorsRunBeforeTheRequestsOwnAndCanBeLeftOut() async throws {
        defer { server.stop() }
        let service = service([HeaderInterceptor(name: "X-Order", value: "service"), HeaderInterceptor(name: "X-Service", value: "1")])
        let request = Request(path: "/echo", parser: JSONParser())
        request.interceptors = [HeaderInterceptor(name: "X-Order", value: "request")]
        let echo = try await service.send(request)
        #expect(echo["headers"]?["X-Order"] == "request")
        #expect(echo["headers"]?["X-Service"] == "1")

        let alone = Request(path: "/echo", parser: JSONParser())
        alone.interceptors = [HeaderInterceptor(name: "X-Order", value: "request")]
        alone.usesServiceInterceptors = false
        let echoed = try await service.send(alone)
        #expect(echoed["headers"]?["X-Service"] == nil)
    }

    @Test func retriesUntilSuccessAndHandlersRunOnce() async throws {
        defer { server.stop() }
        let request = Request(path: "/flaky/ok?failures=2", parser: JSONParser())
        request.interceptors = [Self.noWait]
        let calls = Recorder<Int>()
        let result = await withCheckedContinuation { continuation in
            request.addCompletionHandler { _, result in
                calls.append(1)
                continuation.resume(returning: result)
            }
            service().start(request)
        }
        #expect(result.success?["hit"] == 3)
        #expect(request.attemptCount == 3 && server.hits.count("ok") == 3)
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.all.count == 1)
        #expect(log.all.filter { $0.hasPrefix("retry") } == ["retry 1", "retry 2"])
    }

    @Test func exhaustedRetriesReportTheirAttempts() async throws {
        defer { server.stop() }
        let request = Request(path: "/flaky/down?failures=10&status=502", parser: JSONParser())
        request.interceptors = [Self.noWait]
        let result = await service().result(of: request)
        guard case .failure(.httpStatus(let code, _, _)) = result else { Issue.record("got \(result)"); return }
        #expect(code == 502)
        #expect(request.attemptCount == 3 && request.metrics?.attempts == 3 && server.hits.count("down") == 3)
        #expect(log.metrics.first?.statusCode == 502)
    }

    @Test func postIsRetriedOnlyWhenTheRequestSaysItIsIdempotent() async throws {
        defer { server.stop() }
        let post = Request(path: "/flaky/post?failures=1", method: .post, parser: JSONParser())
        post.interceptors = [Self.noWait]
        _ = await service().result(of: post)
        #expect(server.hits.count("post") == 1)

        let idempotent = Request(path: "/flaky/post2?failures=1", method: .post, parser: JSONParser())
        idempotent.interceptors = [Self.noWait]
        idempotent.isIdempotent = true
        let json = try await service().send(idempotent)
        #expect(json["hit"] == 2)
    }

    @Test(arguments: TransportKind.allCases)
    func droppedConnectionsAreRetried(transport: TransportKind) async throws {
        defer { server.stop() }
        let request = Request(path: "/flaky/dropped-\(transport)?failures=1&drop=1", parser: JSONParser())
        request.interceptors = [Self.noWait]
        #expect(try await service(transport: transport).send(request)["hit"] == 2)
    }

    @Test func retryAfterInSecondsAndAsADateIsHonoured() async throws {
        defer { server.stop() }
        let seconds = Request(path: "/flaky/later?failures=1&status=429&retryAfter=7", parser: JSONParser())
        seconds.interceptors = [RetryPolicy(maxRetries: 1)]
        #expect(try await service().send(seconds)["hit"] == 2)

        // A date a minute ahead (a whole second, as HTTP dates are), read against the service's
        // clock: the wait is what is left of that minute.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 60).rounded(.up)))
        let dated = Request(path: "/flaky/dated?failures=1&status=503&retryAfter=\(date.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
                            parser: JSONParser())
        dated.interceptors = [RetryPolicy(maxRetries: 1)]
        #expect(try await service().send(dated)["hit"] == 2)

        let delays = clock.delays
        #expect(delays.count == 2 && delays.first?.inSeconds.rounded() == 7)
        #expect(delays.last.map { $0 > .seconds(50) && $0 <= .seconds(61) } == true, "\(delays)")
    }

    @Test func aRetryAfterDateIsReadAgainstTheContextsDate() async throws {
        let date = Date(timeIntervalSince1970: 784_111_777 - 30)  // 30 s before Sun, 06 Nov 1994 08:49:37 GMT
        let head = ResponseHead(url: nil, status: 503, headerFields: [.retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT"])
        let context = InterceptorContext(requestID: RequestID(rawValue: 1), attempt: 1, isIdempotent: true, response: head,
                                         date: date)
        let decision = await RetryPolicy(maxRetries: 1).retry(try OutgoingRequest(url: URL(string: "https://api.example.com/")!),
                                                              dueTo: .httpStatus(code: 503, body: Data(), headerFields: head.headerFields),
                                                              context: context)
        #expect(decision == .retry(after: .seconds(30)))
    }

    @Test func aRetryAfterBeyondTheLimitIsNotWaitedFor() async throws {
        defer { server.stop() }
        let request = Request(path: "/flaky/never?failures=1&status=503&retryAfter=3600", parser: JSONParser())
        request.interceptors = [RetryPolicy(maxRetries: 3)]
        let result = await service().result(of: request)
        #expect(result.failure != nil && server.hits.count("never") == 1 && clock.delays.isEmpty)
    }

    /// The backoff is an hour on the real clock: the request finishes only if the cancel ends the
    /// wait (else the test's time limit fails it).
    @Test(.timeLimit(.minutes(1))) func cancellingDuringTheBackoffCancels() async throws {
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.eventMonitors = [log]   // the real clock: the backoff really waits
        let service = Service(configuration: configuration)
        let request = Request(path: "/flaky/wait?failures=5", parser: JSONParser())
        request.interceptors = [RetryPolicy(maxRetries: 3, backoff: Backoff(initial: .seconds(3_600), maximum: .seconds(3_600), jitter: 0))]
        service.start(request)
        await log.wait(for: "retry 1")
        request.cancel()
        let result = await service.result(of: request)
        #expect(result.failure?.isCancellation == true)
        await log.wait(for: "finish")
        #expect(server.hits.count("wait") == 1)
        #expect(service.activeRequestCount == 0)
    }

    @Test func monitorsSeeEveryStepInOrder() async throws {
        defer { server.stop() }
        let request = Request(path: "/json/small", parser: JSONParser())
        _ = try await service().send(request)
        await log.wait(for: "finish")
        #expect(log.all == ["start", "adapt 1", "send 1", "head 200", "parse true", "finish"])
        let metrics = try #require(log.metrics.first)
        #expect(metrics.statusCode == 200 && metrics.attempts == 1 && metrics.bytesReceived > 0 && metrics.error == nil)
        #expect(metrics.url?.path == "/json/small" && metrics.duration > .zero)
        #expect(request.metrics?.id == request.id)
    }

    @Test(arguments: TransportKind.allCases)
    func monitorsHearEachRedirectBeforeItIsFollowed(transport: TransportKind) async throws {
        defer { server.stop() }
        let inner = "/redirect?to=" + "/json/small".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let outer = "/redirect?to=" + inner.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        _ = try await service(transport: transport).send(Request(path: outer, parser: JSONParser()))
        await log.wait(for: "finish")
        #expect(log.all == ["start", "adapt 1", "send 1", "redirect 302 /redirect 1", "redirect 302 /json/small 1",
                            "head 200", "parse true", "finish"])
    }

    @Test(arguments: TransportKind.allCases)
    func aProgressHandlerAddedAfterStartReportsFromThenOn(transport: TransportKind) async throws {
        defer { server.stop() }
        let size = 2 * 1024 * 1024
        // The server pauses after its first write, long enough that the handler is added while
        // the body is still coming even when the suites around it keep the machine busy (a 300 ms
        // pause lost that race in a full CI run).
        let request = Request(path: "/bytes?count=\(size)&pauseMs=1500")
        let service = service(transport: transport)
        service.start(request)
        await log.wait(for: "head 200")
        let seen = Recorder<TransferProgress>()
        request.addProgressHandler { _, progress in seen.append(progress) }
        #expect(request.state == .running, "the body had all arrived before the handler was added")
        // Completion handlers run on the callback queue after every progress call queued before.
        let data = try await withCheckedThrowingContinuation { continuation in
            request.addCompletionHandler { _, result in continuation.resume(with: result) }
        }
        #expect(data.count == size)
        #expect(seen.all.count >= 2)
        #expect(seen.all.last?.completedBytes == Int64(size) && seen.all.last?.fractionCompleted == 1)
    }
}

/// Backoff and `Retry-After` as pure functions.
@Suite struct RetryPolicyTests {
    @Test func backoffGrowsToItsCapWithJitterInBounds() {
        let backoff = Backoff(initial: .milliseconds(100), multiplier: 2, maximum: .seconds(1), jitter: 0)
        #expect((1...6).map { backoff.delay(beforeRetry: $0) } == [.milliseconds(100), .milliseconds(200), .milliseconds(400),
                                                                   .milliseconds(800), .seconds(1), .seconds(1)])
        let jittered = Backoff(initial: .seconds(1), jitter: 0.25)
        var random = SeededGenerator(seed: 3)
        let delays = (0..<200).map { _ in jittered.delay(beforeRetry: 1, using: &random) }
        #expect(delays.allSatisfy { $0 >= .milliseconds(750) && $0 <= .milliseconds(1250) })
        #expect(Set(delays).count > 50)
    }

    @Test func retryAfterTakesSecondsAndAllThreeDateForms() {
        let now = Date(timeIntervalSince1970: 784_111_777 - 10)  // 10 s before Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryPolicy.retryAfter("120", now: now) == .seconds(120))
        #expect(RetryPolicy.retryAfter(" 0 ", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Sun Nov  6 08:49:37 1994", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:00 GMT", now: now) == .zero)
        #expect(RetryPolicy.retryAfter("-5", now: now) == nil)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
    }
}

/// What a failure or a success carries.
@Suite struct ResultDetailTests {
    @Test func parseErrorsKeepTheirKindAndACustomParsersOwnError() async throws {
        struct Refusal: Error, Equatable { let why: String }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let custom = await fixture.service.result(of: Request(path: "/json/small", parser: ClosureParser<Int> { _ in
            throw Refusal(why: "no")
        }))
        guard case .failure(.parse(let error)) = custom else { Issue.record("got \(custom)"); return }
        #expect(error.kind == .custom && error.underlying as? Refusal == Refusal(why: "no"))
        let kinds: [(String, JSONParser, ParseError.Kind)] = [
            ("/json/malformed", JSONParser(), .malformed),
            ("/json/small", JSONParser(contentKeyPath: "no/such"), .keyPath),
            ("/empty", JSONParser(), .emptyBody),
            ("/json/small", JSONParser(acceptableContentTypes: ["text/csv"]), .contentType),
            ("/json/small", JSONParser(shape: ["code": .string]), .shape),
        ]
        for (path, parser, kind) in kinds {
            let result = await fixture.service.result(of: Request(path: path, parser: parser))
            guard case .failure(.parse(let error)) = result else { Issue.record("\(path): got \(result)"); continue }
            #expect(error.kind == kind, "\(path): \(error)")
        }
    }

    @Test func aReplyCarriesStatusHeadersAndMetrics() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let reply = try await fixture.service.reply(to: Request(path: "/json/small", parser: JSONParser()))
        #expect(reply.value["code"] == 0 && reply.status.code == 200)
        #expect(reply.head.headerFields[.contentType]?.hasPrefix("application/json") == true)
        #expect(reply.metrics.attempts == 1 && reply.metrics.bytesReceived > 0 && !reply.metrics.isFromCache)
    }

    @Test func completionHandlersSeeTheResponseAndMetrics() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let request = Request(path: "/json/small", parser: JSONParser())
        let seen = await withCheckedContinuation { continuation in
            request.addCompletionHandler { request, _ in
                continuation.resume(returning: (request.responseHead?.status.code, request.metrics?.attempts))
            }
            fixture.service.start(request)
        }
        #expect(seen.0 == 200 && seen.1 == 1)
    }
}
