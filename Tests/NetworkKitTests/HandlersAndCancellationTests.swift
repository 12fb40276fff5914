import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// A request's handlers and cancellation through a real service: handlers in order and once,
/// cancelling before start, after the finish, by ID, all at once or through the calling task, a
/// thousand requests at sixteen in flight, the default callback queue, and the service holding
/// requests their callers dropped.
@Suite("Handlers and cancellation")
struct HandlersAndCancellationTests {
    @Test(arguments: TransportKind.allCases) func handlersRunInOrderExactlyOnce(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/json/small", parser: JSONParser())
        let calls = Recorder<Int>()
        for index in 0..<5 {
            request.addCompletionHandler { _, result in
                #expect(result.success != nil)
                calls.append(index)
            }
        }
        let states = Recorder<RequestState>()
        request.addStateHandler { _, state in states.append(state) }
        #expect(request.state == .ready)
        _ = await fixture.service.completion(of: request)
        // A handler added after the finish gets the stored result, once, after the others.
        await withCheckedContinuation { continuation in
            request.addCompletionHandler { _, _ in calls.append(5); continuation.resume() }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.all == [0, 1, 2, 3, 4, 5])
        #expect(states.all == [.running, .finished])
        #expect(request.state == .finished)
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test(arguments: TransportKind.allCases) func cancelBeforeStartFinishesCancelledWhenStarted(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/json/small")
        request.cancel()
        #expect(request.state == .cancelled)
        let result = await fixture.service.completion(of: request)
        guard case .cancelled = result.failure else { Issue.record("got \(result)"); return }
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test(arguments: TransportKind.allCases) func cancelAfterFinishChangesNothing(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/json/small", parser: JSONParser())
        let calls = Recorder<Bool>()
        request.addCompletionHandler { _, result in calls.append(result.success != nil) }
        _ = await fixture.service.completion(of: request)
        request.cancel()
        try await Task.sleep(for: .milliseconds(100))
        #expect(request.state == .finished)
        #expect(calls.all == [true])
    }

    @Test(arguments: TransportKind.allCases) func cancelByIDAndCancelAll(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let requests = (0..<4).map { _ in Request(path: "/slow?ms=3000") }
        let results = Recorder<NetworkError?>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Protected(requests.count)
            for request in requests {
                request.addCompletionHandler { _, result in
                    results.append(result.failure)
                    if remaining.withLock({ $0 -= 1; return $0 }) == 0 { continuation.resume() }
                }
                fixture.service.start(request)
            }
            #expect(fixture.service.activeRequestCount == 4)
            #expect(fixture.service.cancel(id: requests[0].id))
            fixture.service.cancelAll()
        }
        #expect(results.all.count == 4)
        #expect(results.all.allSatisfy { if case .cancelled = $0 { true } else { false } })
        #expect(!fixture.service.cancel(id: requests[0].id))
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test(arguments: TransportKind.allCases) func cancellingTheTaskCancelsTheRequest(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/slow?ms=3000")
        let task = Task { try await fixture.service.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let outcome = await task.result
        guard case .failure(let error as NetworkError) = outcome, case .cancelled = error else {
            Issue.record("got \(outcome)"); return
        }
        #expect(request.state == .cancelled)
    }

    @Test(arguments: TransportKind.allCases) func aThousandRequestsSixteenInFlight(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let total = 1_000
        let counts = Protected([Int](repeating: 0, count: total))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<total {
                if index >= 16 { try await group.next() }
                group.addTask {
                    let request = Request(path: "/json/small", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/id"))
                    let value = try await withCheckedThrowingContinuation { continuation in
                        request.addCompletionHandler { _, result in
                            counts.withLock { $0[index] += 1 }
                            continuation.resume(with: result)
                        }
                        fixture.service.start(request)
                    }
                    #expect(value == 42)
                }
            }
            try await group.waitForAll()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(counts.snapshot.allSatisfy { $0 == 1 })
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test func defaultCallbackQueueIsMain() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL))
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let onMain = await withCheckedContinuation { continuation in
            let request = Request(path: "/json/small")
            request.addCompletionHandler { _, _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == "main")
            }
            service.start(request)
        }
        #expect(onMain)
    }

    @Test(arguments: TransportKind.allCases) func serviceHoldsRequestsCallersDropped(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let finished = await withCheckedContinuation { continuation in
            do {
                let request = Request(path: "/slow?ms=100", parser: JSONParser(contentKeyPath: "slept"))
                request.addCompletionHandler { _, result in continuation.resume(returning: result.success) }
                fixture.service.start(request)
            }
        }
        #expect(finished == 100)
    }
}
