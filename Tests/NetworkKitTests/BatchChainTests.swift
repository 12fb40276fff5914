import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// YTKNetwork's batch and chain requests on the kit: real HTTP against the fixture server.
@Suite("Batch and chain requests")
struct BatchChainTests {
    @Test func aBatchOfMixedTypesFinishesOnceWithEveryValueInOrder() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let batch = BatchRequest()
        let bytes = batch.add(Request(path: "/bytes?count=16"))
        let id = batch.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/id")))
        let text = batch.add(Request(path: "/text", parser: StringParser()))
        let feed = batch.add(Request(path: "/json/feed", parser: ModelParser([Entrance].self,
                                                                            json: JSONParser(contentKeyPath: "content/entrance"))))
        let calls = Recorder<Int>()
        for index in 0..<3 {
            batch.addCompletionHandler { _, result in
                #expect(result.success != nil)
                calls.append(index)
            }
        }
        let result = await fixture.service.completion(of: batch)
        let values = try result.get()
        #expect(values.count == 4 && values.requestIDs == [bytes.id, id.id, text.id, feed.id])
        #expect(values[bytes]?.count == 16)
        #expect(values[id] == 42)
        #expect(values[text]?.isEmpty == false)
        #expect(values[feed]?.map(\.name) == ["Spring sale", "New arrivals"])
        #expect(values.all[0] is Data && values.all[1] is JSON && values.all[2] is String && values.all[3] is [Entrance])
        #expect(values[Request(path: "/not/in/the/batch")] == nil)
        // One added after the finish gets the stored result, once, after the others.
        await withCheckedContinuation { continuation in
            batch.addCompletionHandler { _, _ in calls.append(3); continuation.resume() }
        }
        #expect(calls.all == [0, 1, 2, 3])
        #expect(batch.state == .finished && fixture.service.activeRequestCount == 0)

        let again = BatchRequest()
        let small = again.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/name")))
        let data = again.add(Request(path: "/bytes?count=3"))
        let awaited = try await fixture.service.send(again)
        #expect(awaited[small] == "small" && awaited[data]?.count == 3)
    }

    @Test func aFailureInABatchOf50IsReportedAtOnceAndCancelsTheRest() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        // 49 requests held in flight at the gate (they open no connection, so stopping the server
        // finds none half accepted); one fails with 503.
        let gate = Gate()
        defer { gate.open() }
        let batch = BatchRequest()
        var requests: [Request<Data>] = []
        for index in 0..<50 {
            let request = Request(path: index == 23 ? "/status/503" : "/count/batch50-\(index)")
            if index != 23 { request.interceptors = [gate] }
            requests.append(batch.add(request))
        }
        let result = await fixture.service.completion(of: batch)
        guard case .failure(let failure) = result else { Issue.record("got \(result)"); return }
        #expect(failure.groupFailure?.position == 23 && failure.groupFailure?.requestID == requests[23].id)
        guard case .httpStatus(503, _, _) = failure.groupFailure?.error else { Issue.record("got \(failure)"); return }
        for (index, request) in requests.enumerated() where index != 23 {
            #expect(request.state == .cancelled, "request \(index) is \(request.state)")
        }
        #expect(batch.state == .finished && fixture.service.activeRequestCount == 0)
        gate.open()
        #expect((0..<50).allSatisfy { fixture.server.hits.count("batch50-\($0)") == 0 })
    }

    @Test func withoutCancellingTheRestABatchFinishesAfterItsLastRequestWithTheFirstFailure() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let batch = BatchRequest(cancelsRemainingOnFailure: false)
        batch.add(Request(path: "/slow?ms=300"))
        let failing = batch.add(Request(path: "/status/404"))
        let counted = batch.add(Request(path: "/count/batch-keep-going", parser: JSONParser()))
        let progress = Recorder<BatchProgress>()
        batch.addProgressHandler { _, value in progress.append(value) }
        // The completion handler runs after every progress handler on the callback queue; an
        // awaited `result(of:)` may return before the last of them ran (seen under ThreadSanitizer).
        let result = await fixture.service.completion(of: batch)
        guard case .failure(let failure) = result else { Issue.record("got \(result)"); return }
        #expect(failure.groupFailure?.position == 1 && failure.groupFailure?.requestID == failing.id)
        #expect(counted.state == .finished && fixture.server.hits.count("batch-keep-going") == 1)
        #expect(progress.all.map(\.completed) == [1, 2, 3])
    }

    @Test func progressCountsFinishedRequestsAndEndsBeforeTheCompletion() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let batch = BatchRequest()
        for _ in 0..<5 { batch.add(Request(path: "/json/small", parser: JSONParser())) }
        let events = Recorder<String>()
        batch.addProgressHandler { _, progress in events.append("\(progress)") }
        await withCheckedContinuation { continuation in
            batch.addCompletionHandler { _, result in
                events.append(result.success != nil ? "done" : "failed")
                continuation.resume()
            }
            fixture.service.start(batch)
        }
        #expect(events.all == ["1/5", "2/5", "3/5", "4/5", "5/5", "done"])
        #expect(BatchProgress(completed: 2, total: 8).fractionCompleted == 0.25)
    }

    @Test func cancellingABatchCancelsEveryRequestAndFinishesOnce() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let batch = BatchRequest()
        let requests = (0..<4).map { index in
            let request = batch.add(Request(path: "/count/batch-cancelled-\(index)"))
            request.interceptors = [gate]
            return request
        }
        let calls = Recorder<NetworkError?>()
        let result = await withCheckedContinuation { continuation in
            batch.addCompletionHandler { _, result in
                calls.append(result.failure)
                continuation.resume(returning: result)
            }
            fixture.service.start(batch)
            Task {
                await gate.arrivals(4)
                #expect(batch.state == .running)
                batch.cancel()
                batch.cancel()
            }
        }
        guard case .failure(let failure) = result, failure.groupFailure?.error.isCancellation == true else { Issue.record("got \(result)"); return }
        #expect(failure.groupFailure?.position == 0 && failure.groupFailure?.requestID == requests[0].id)
        #expect(requests.allSatisfy { $0.state == .cancelled })
        #expect(batch.state == .cancelled && calls.all.count == 1)
        // Cancelled before start: it finishes cancelled when started, and nothing is sent.
        let early = BatchRequest()
        let unsent = early.add(Request(path: "/count/batch-never-sent"))
        early.cancel()
        #expect(early.state == .cancelled)
        let outcome = await fixture.service.result(of: early)
        #expect(outcome.failure?.isCancellation == true && unsent.state == .cancelled)
        #expect(fixture.server.hits.count("batch-never-sent") == 0)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheBatch() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let batch = BatchRequest()
        let held = (0..<2).map { index in
            let request = batch.add(Request(path: "/count/batch-task-held-\(index)"))
            request.interceptors = [gate]
            return request
        }
        let task = Task { await fixture.service.result(of: batch) }
        await gate.arrivals(2)
        task.cancel()
        let result = await task.value
        #expect(result.failure?.isCancellation == true)
        #expect(held.allSatisfy { $0.state == .cancelled } && batch.state == .cancelled)
        #expect(fixture.server.hits.count("batch-task-held-0") + fixture.server.hits.count("batch-task-held-1") == 0)
    }

    @Test func aChainPassesEachValueToTheNextStep() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let chain = ChainRequest()
        let seen = Recorder<String>()
        chain.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/id"))) { chain, id in
            seen.append("id \(id)")
            chain.add(Request(path: "/count/chain-\(id)", parser: JSONParser(contentKeyPath: "hit"))) { chain, hit in
                seen.append("hit \(hit)")
                chain.add(Request(path: "/hits/chain-\(id)", parser: JSONParser(contentKeyPath: "hits")))
            }
        }
        let values = try await withCheckedThrowingContinuation { continuation in
            chain.addCompletionHandler { _, result in continuation.resume(with: result) }
            fixture.service.start(chain)
        }
        #expect(seen.all == ["id 42", "hit 1"])
        #expect(values.all.compactMap { $0 as? JSON } == [42, 1, 1])
        #expect(values.requestIDs == chain.requestIDs && chain.requestIDs.count == 3)
        #expect(chain.state == .finished)
        #expect(fixture.server.hits.count("chain-42") == 1)

        // Steps added before start run in order too; the async form returns the same values.
        let planned = ChainRequest()
        let first = planned.add(Request(path: "/count/chain-planned", parser: JSONParser(contentKeyPath: "hit")))
        let second = planned.add(Request(path: "/count/chain-planned", parser: JSONParser(contentKeyPath: "hit")))
        let awaited = try await fixture.service.send(planned)
        #expect(awaited[first] == 1 && awaited[second] == 2)
    }

    @Test func aFailedStepStopsTheChainAndIsNamed() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let chain = ChainRequest()
        let failing = Request(path: "/status/404")
        chain.add(Request(path: "/json/small", parser: JSONParser())) { chain, _ in
            chain.add(failing) { chain, _ in
                chain.add(Request(path: "/count/chain-after-failure"))
            }
        }
        let result = await fixture.service.result(of: chain)
        guard case .failure(let failure) = result else { Issue.record("got \(result)"); return }
        #expect(failure.groupFailure?.position == 1 && failure.groupFailure?.requestID == failing.id)
        guard case .httpStatus(404, _, _) = failure.groupFailure?.error else { Issue.record("got \(failure)"); return }
        #expect(chain.requestIDs.count == 2 && fixture.server.hits.count("chain-after-failure") == 0)

        // A callback that throws fails the chain at its step.
        let throwing = ChainRequest()
        throwing.add(Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/name"))) { _, name in
            throw NetworkError.invalidParameter(name: "name", reason: "\(name) is not a user id")
        }
        let thrown = await fixture.service.result(of: throwing)
        guard case .failure(let callbackFailure) = thrown, case .invalidParameter("name", _) = callbackFailure.groupFailure?.error else {
            Issue.record("got \(thrown)")
            return
        }
        #expect(callbackFailure.groupFailure?.position == 0)
    }

    @Test func cancellingAChainCancelsTheRunningStep() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let chain = ChainRequest()
        let held = Request(path: "/count/chain-held")
        held.interceptors = [gate]
        chain.add(Request(path: "/json/small", parser: JSONParser())) { chain, _ in
            chain.add(held) { chain, _ in chain.add(Request(path: "/count/chain-never-sent")) }
        }
        Task {
            await gate.arrivals(1)
            chain.cancel()
        }
        // The result as the completion handler gets it: an awaited `result(of:)` may return before
        // the handler has run on the callback queue (seen under ThreadSanitizer), and the test
        // counts the handler's calls at its end. A second call is counted, not resumed again.
        let calls = Recorder<Int>()
        let result = await withCheckedContinuation { continuation in
            chain.addCompletionHandler { _, result in
                calls.append(1)
                if calls.all.count == 1 { continuation.resume(returning: result) }
            }
            fixture.service.start(chain)
        }
        guard case .failure(let failure) = result, failure.groupFailure?.error.isCancellation == true else { Issue.record("got \(result)"); return }
        #expect(failure.groupFailure?.position == 1 && failure.groupFailure?.requestID == held.id)
        #expect(held.state == .cancelled && chain.state == .cancelled)
        #expect(fixture.server.hits.count("chain-held") + fixture.server.hits.count("chain-never-sent") == 0)

        // Cancelling the awaiting task cancels the chain too.
        let awaited = ChainRequest()
        let gated = awaited.add(Request(path: "/count/chain-task-held"))
        gated.interceptors = [gate]
        let task = Task { await fixture.service.result(of: awaited) }
        await gate.arrivals(2)
        task.cancel()
        let cancelled = await task.value
        #expect(cancelled.failure?.groupFailure?.position == 0 && cancelled.failure?.isCancellation == true)
        #expect(gated.state == .cancelled && fixture.server.hits.count("chain-task-held") == 0)
        #expect(calls.all == [1])
    }
}

/// Holds requests in `adapt` until `open()` or until their task is cancelled, so a test knows
/// they are in flight without waiting on a clock; `arrivals(n)` returns once `n` requests have
/// reached it.
final class Gate: RequestInterceptor {
    private struct State {
        var isOpen = false
        var arrived = 0
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelled: Set<Int> = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Protected(State())

    /// Returns once `count` requests have reached the gate.
    func arrivals(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = state.withLock { state -> Bool in
                guard state.arrived < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Lets every held request go, and every later one through.
    func open() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        let token = state.withLock { state -> Int in
            state.arrived += 1
            return state.arrived
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (goNow, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    let goNow = state.isOpen || state.cancelled.contains(token)
                    if !goNow { state.held[token] = continuation }
                    let reached = state.watchers.filter { $0.count <= token }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= token }
                    return (goNow, reached)
                }
                for watcher in reached { watcher.resume() }
                if goNow { continuation.resume() }
            }
        } onCancel: {
            let held = state.withLock { state in
                state.cancelled.insert(token)
                return state.held.removeValue(forKey: token)
            }
            held?.resume()
        }
        try Task.checkCancellation()
        return request
    }
}
