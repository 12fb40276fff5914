import Foundation
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// What the stub adds to the conformance scenarios (which it plays like the real transports):
/// matching, recording, answers in turn, exact chunking, the injected clock, invalidation.
@Suite("StubTransport", .timeLimit(.minutes(1)))
struct StubTransportTests {
    /// A service on `stub` (wrapped in the contract check) whose handlers run on a private queue.
    static func service(_ stub: StubTransport, interceptors: [any RequestInterceptor] = []) -> (Service, ContractCheckingTransport) {
        let checked = ContractCheckingTransport(stub)
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.interceptors = interceptors
        return (Service(configuration: configuration, transport: checked), checked)
    }

    @Test func theConvenienceAnswersThroughAService() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/v1/feed"), with: .json(#"{"code": 0, "content": {"entrance": [{"name": "a"}]}}"#))
        let (service, _) = Self.service(stub)
        let names = try await service.send(Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
                                                                                      contentKeyPath: "content/entrance")))
        #expect(names[0]?["name"] == "a")
        #expect(stub.requests.map(\.description) == ["GET https://api.example.com/v1/feed"])
    }

    @Test func theFirstMatchingAnswerWinsByMethodAndPattern() async throws {
        let stub = StubTransport()
        stub.answer(.post, .path("/v1/items"), with: .text("posted"))
        stub.answer(nil, .url("https://api.example.com/v1/items?page=2"), with: .text("page 2"))
        stub.answer(.get, .pathPrefix("/v1/items"), with: .text("prefix"))
        stub.answer(.get, .path("/v1/items"), with: .text("never: the prefix came first"))
        stub.answer(nil, .matching("a header") { $0.header(HTTPField.Name("x-mode")!) == "special" }, with: .text("special"))
        let (service, _) = Self.service(stub)
        func text(_ request: Request<String>) async throws -> String { try await service.send(request) }
        #expect(try await text(Request(path: "/items", method: .post, parser: StringParser())) == "posted")
        #expect(try await text(Request(path: "/items?page=2", parser: StringParser())) == "page 2")
        #expect(try await text(Request(path: "/items", parser: StringParser())) == "prefix")
        let special = Request(path: "/other", method: .delete, parser: StringParser())
        special.headerFields[HTTPField.Name("X-Mode")!] = "special"
        #expect(try await text(special) == "special")
        #expect(stub.requests(.get, .pathPrefix("/v1/items")).count == 2)
    }

    @Test func anUnmatchedRequestFailsNamingIt() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/v1/feed"), with: .json("{}"))
        let (service, _) = Self.service(stub)
        let result = await service.result(of: Request(path: "/missing", method: .put))
        guard case .transport(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.code == .resourceUnavailable)
        let failure = try #require(result.failure)
        let unmatched = try #require(UnmatchedRequest(failure))
        #expect(unmatched.request.description == "PUT https://api.example.com/v1/missing")
        #expect(unmatched.answers == ["GET path /v1/feed"])
        #expect(result.failure?.description.contains("StubTransport has no answer for PUT https://api.example.com/v1/missing") == true)
        #expect(stub.unmatchedRequests.map(\.method) == ["PUT"])
    }

    @Test func bodiesAreRecordedFromMemoryAndFromFiles() async throws {
        let stub = StubTransport()
        stub.answer(.post, .any, with: .json("{}"))
        let (service, checked) = Self.service(stub)
        let inMemory = Request(path: "/upload", method: .post)
        inMemory.body = .data(Data("hello".utf8), contentType: "text/plain")
        _ = try await service.send(inMemory)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stub-body-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 9, count: 200_000).write(to: file)
        let fromFile = Request(path: "/upload", method: .post)
        fromFile.body = .file(file, contentType: "application/octet-stream")
        _ = try await service.send(fromFile)
        #expect(stub.requests.map(\.body.count) == [5, 200_000])
        #expect(stub.requests.first?.header(.contentType) == "text/plain")
        let traces = await checked.completedTraces()
        #expect(traces.last?.sends.map(\.bytes) == [65_536, 131_072, 196_608, 200_000])
    }

    @Test func answersInTurnLetARetrySucceed() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/v1/flaky"), with: [.failure(URLError(.networkConnectionLost)), .json(#"{"code": 0}"#)])
        let (service, _) = Self.service(stub, interceptors: [RetryPolicy(maxRetries: 2, backoff: .init(initial: .zero, jitter: 0))])
        let json = try await service.send(Request(path: "/flaky", parser: JSONParser()))
        #expect(json["code"] == 0)
        #expect(stub.requests.count == 2)
    }

    @Test(arguments: [(StubResponse.Chunking.pieces(4), [2, 3, 2, 3]), (.size(4), [4, 4, 2]), (.whole, [10]), (.pieces(20), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1])])
    func chunkingCutsTheBodyExactly(chunking: StubResponse.Chunking, sizes: [Int]) async throws {
        let stub = StubTransport()
        var answer = StubResponse(body: Data(0..<10))
        answer.chunking = chunking
        stub.answer(.get, .any, with: answer)
        let (service, checked) = Self.service(stub)
        #expect(try await service.send(Request(path: "/x")) == Data(0..<10))
        let trace = try #require(await checked.completedTraces().first)
        #expect(trace.chunks.map(\.count) == sizes)
        #expect(trace.violations.isEmpty)
    }

    @Test func delaysAndTimeoutsPassOnTheInjectedClock() async throws {
        let clock = InstantClock()
        let stub = StubTransport(clock: clock)
        stub.answer(.get, .path("/v1/slow"), with: StubResponse.json("{}").chunked(into: 3).delayed(head: .seconds(30), betweenChunks: .seconds(5)))
        stub.answer(.get, .path("/v1/silent"), with: StubResponse.json("{}").timingOut())
        let (service, _) = Self.service(stub)
        let slow = Request(path: "/slow")
        slow.timeout = .seconds(60)
        #expect(try await service.send(slow) == Data("{}".utf8))
        #expect(clock.slept == [.seconds(30), .seconds(5)])
        let silent = Request(path: "/silent")
        silent.timeout = .seconds(45)
        #expect(await service.result(of: silent).failure?.isTimeout == true)
        #expect(clock.slept.last == .seconds(45))   // on the stub's clock: the suite's minute would not hold 80 real seconds
    }

    /// A timeout of a billion seconds is no timeout: a delay of a day is waited out, on the clock.
    @Test func aRequestWithoutATimeoutWaitsOutAnyDelay() async throws {
        let clock = InstantClock()
        let stub = StubTransport(clock: clock)
        stub.answer(.get, .any, with: StubResponse.json("{}").delayed(head: .seconds(86_400)))
        let (service, _) = Self.service(stub)
        let patient = Request(path: "/patient")
        patient.timeout = .seconds(1_000_000_000)
        #expect(try await service.send(patient) == Data("{}".utf8))
        #expect(clock.slept == [.seconds(86_400)])
    }

    /// Silence with no timeout lasts until the request is cancelled, sleeping on no clock (one
    /// whose sleeps return at once would otherwise spin).
    @Test func silenceWithoutATimeoutLastsUntilCancelled() async throws {
        let clock = InstantClock()
        let stub = StubTransport(clock: clock)
        let (service, _) = Self.service(stub)
        let (_, result) = await cancelWhileSilent(stub) { await service.result(of: $0) }
        #expect(result.failure?.isCancellation == true)
        #expect(clock.slept.isEmpty)
    }

    @Test func anInvalidatedStubCancelsNewTransfers() async throws {
        let stub = StubTransport()
        stub.answer(.get, .any, with: .json("{}"))
        stub.finishAndInvalidate()
        let (service, _) = Self.service(stub)
        #expect(await service.result(of: Request(path: "/x")).failure?.isCancellation == true)
        #expect(stub.requests.isEmpty)
    }
}

/// Has `stub` answer a GET with silence, awaits a request without a timeout through `awaiting`
/// in a task, cancels that task once the stub has the request, and returns the request and
/// what the awaiting came to.
func cancelWhileSilent(_ stub: StubTransport,
                       awaiting: @escaping @Sendable (Request<Data>) async -> Result<Data, NetworkError>)
    async -> (Request<Data>, Result<Data, NetworkError>) {
    let (answered, answer) = AsyncStream<Void>.makeStream()
    stub.answer(.get, .any) { _ in
        answer.yield()
        return StubResponse.json("{}").timingOut()
    }
    let silent = Request(path: "/silent")
    silent.timeout = .seconds(1_000_000_000)
    let waiting = Task { await awaiting(silent) }
    for await _ in answered { break }
    waiting.cancel()
    return (silent, await waiting.value)
}

/// A clock whose sleeps return at once, recording how long each was.
final class InstantClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Protected<(now: Duration, slept: [Duration])>((.zero, []))
    var now: Instant { Instant(offset: state.snapshot.now) }
    var minimumResolution: Duration { .zero }
    /// Every sleep so far, in order.
    var slept: [Duration] { state.snapshot.slept }

    /// Moves the clock on by `duration`, as if that much time had passed.
    func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.slept.append(deadline.offset - state.now)
            state.now = max(state.now, deadline.offset)
        }
    }
}
