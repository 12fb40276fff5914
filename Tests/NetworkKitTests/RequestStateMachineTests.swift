import Foundation
import Testing
@testable import NetworkKit

/// The request lifecycle's state machine as tables of phase × event → phase and action, with no
/// server and no queue: every pair, including the races load runs once found (a cancel during a
/// cache read, a cancel as the request starts). Then the rules of what its lock guards beside it
/// (`AnyRequest.Locked`): handlers taken once by the finish that won, progress and cached replies
/// only while the request is active, the metrics a finish keeps.
@Suite("Request lifecycle state machine")
struct RequestStateMachineTests {
    /// The phases a table starts from, each reached through the machine's own events.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case ready, stoppedBeforeStart, running, runningPipelineFinishes, stopping, finished

        var testDescription: String { rawValue }

        func lifecycle() -> AnyRequest.StateMachine {
            var lifecycle = AnyRequest.StateMachine()
            switch self {
            case .ready:
                break
            case .stoppedBeforeStart:
                _ = lifecycle.stop(.cancelled)
            case .running:
                _ = lifecycle.start(Self.context, pipelineFinishesStops: false)
            case .runningPipelineFinishes:
                _ = lifecycle.start(Self.context, pipelineFinishesStops: true)
            case .stopping:
                _ = lifecycle.start(Self.context, pipelineFinishesStops: true)
                _ = lifecycle.stop(.cancelled)
            case .finished:
                _ = lifecycle.start(Self.context, pipelineFinishesStops: false)
                _ = lifecycle.finish(.success(1))
            }
            return lifecycle
        }

        /// What the lock guards, its lifecycle in this phase, with one completion handler added
        /// before the phase was reached (none for `finished`: it would have been called).
        func locked() -> AnyRequest.Locked {
            var locked = AnyRequest.Locked(options: RequestOptions(target: .path("/"), method: .get, parameters: [:], headerFields: [:]))
            if self != .finished { locked.addCompletionHandler(Self.handler).expectKept() }
            locked.lifecycle = lifecycle()
            return locked
        }

        static let context = StartContext(registry: RequestRegistry())
        static let handler: AnyRequest.Locked.CompletionHandler = { _, _ in }
        static let metrics = RequestMetrics(id: RequestID(rawValue: 0), url: nil, method: .get, statusCode: nil, attempts: 1,
                                            duration: .zero, bytesSent: 0, bytesReceived: 0, error: nil)
    }

    // MARK: - The lifecycle alone

    @Test("start", arguments: [
        (Start.ready, "running", "run"),
        (.stoppedBeforeStart, "finished(cancelled)", "finish(cancelled)"),
        (.running, "running", "ignore"),
        (.runningPipelineFinishes, "running", "ignore"),
        (.stopping, "stopping", "ignore"),
        (.finished, "finished(finished)", "ignore"),
    ])
    func start(from start: Start, phase: String, action: String) {
        var lifecycle = start.lifecycle()
        let taken = lifecycle.start(Start.context, pipelineFinishesStops: false)
        #expect(Self.describe(taken) == action)
        #expect(Self.describe(lifecycle.phase) == phase)
    }

    @Test("stop", arguments: [
        (Start.ready, "stoppedBeforeStart", "ignore"),
        (.stoppedBeforeStart, "stoppedBeforeStart", "ignore"),
        (.running, "finished(cancelled)", "cancelAndFinish(cancelled)"),
        (.runningPipelineFinishes, "stopping", "cancel"),
        (.stopping, "stopping", "ignore"),
        (.finished, "finished(finished)", "ignore"),
    ])
    func stop(from start: Start, phase: String, action: String) {
        var lifecycle = start.lifecycle()
        let taken = lifecycle.stop(.cancelled)
        #expect(Self.describe(taken) == action)
        #expect(Self.describe(lifecycle.phase) == phase)
    }

    /// The pipeline's finish: a stop wins over its result, an earlier finish over both.
    @Test("finish", arguments: [
        (Start.ready, "ready", "notStarted"),
        (.stoppedBeforeStart, "stoppedBeforeStart", "notStarted"),
        (.running, "finished(finished)", "finished(success)"),
        (.runningPipelineFinishes, "finished(finished)", "finished(success)"),
        (.stopping, "finished(cancelled)", "finished(cancelled)"),
        (.finished, "finished(finished)", "finishedBefore(success)"),
    ])
    func finish(from start: Start, phase: String, action: String) {
        var lifecycle = start.lifecycle()
        let finished = lifecycle.finish(.success(2))
        #expect(Self.describe(finished) == action)
        #expect(Self.describe(lifecycle.phase) == phase)
    }

    /// The commit before an act that cannot be undone (a download's file moved into place):
    /// allowed only while the request runs, and a stop after it changes nothing, so the finish
    /// that follows is the pipeline's own.
    @Test("commit, then stop, then finish", arguments: [
        (Start.ready, false, "ignore", "notStarted"),
        (.stoppedBeforeStart, false, "ignore", "notStarted"),
        (.running, true, "ignore", "finished(success)"),
        (.runningPipelineFinishes, true, "ignore", "finished(success)"),
        (.stopping, false, "ignore", "finished(cancelled)"),
        (.finished, false, "ignore", "finishedBefore(success)"),
    ])
    func commit(from start: Start, commits: Bool, stop: String, finish: String) {
        var lifecycle = start.lifecycle()
        #expect(lifecycle.commit() == commits)
        #expect(Self.describe(lifecycle.stop(.cancelled)) == stop)
        #expect(Self.describe(lifecycle.finish(.success(2))) == finish)
    }

    /// Work handed over after a stop is cancelled at once: a transfer that starts as the request
    /// is cancelled does not run on.
    @Test("attach", arguments: [
        (Start.ready, AnyRequest.StateMachine.AttachAction.cancelAtOnce),
        (.stoppedBeforeStart, .cancelAtOnce),
        (.running, .kept),
        (.runningPipelineFinishes, .kept),
        (.stopping, .cancelAtOnce),
        (.finished, .cancelAtOnce),
    ])
    func attach(from start: Start, action: AnyRequest.StateMachine.AttachAction) {
        var lifecycle = start.lifecycle()
        #expect(lifecycle.attach(.wait(Task {})) == action)
    }

    @Test("public state and stop flag", arguments: [
        (Start.ready, RequestState.ready, false), (.stoppedBeforeStart, .cancelled, true), (.running, .running, false),
        (.runningPipelineFinishes, .running, false), (.stopping, .running, true), (.finished, .finished, true),
    ])
    func state(of start: Start, state: RequestState, stopRequested: Bool) {
        let lifecycle = start.lifecycle()
        #expect(lifecycle.state == state)
        #expect(lifecycle.isStoppedOrFinished == stopRequested)
    }

    /// A cancel during a cache read (the pipeline waits for an entry another request fetches):
    /// the wait is cancelled, and the pipeline's later finish ends the request with the
    /// cancellation, whatever it found.
    @Test func cancelDuringACacheRead() {
        var lifecycle = Start.runningPipelineFinishes.lifecycle()
        let wait = Task<Void, any Error> { try await Task.sleep(for: .seconds(60)) }
        #expect(lifecycle.attach(.wait(wait)) == .kept)
        guard case .cancel(let work) = lifecycle.stop(.cancelled) else {
            Issue.record("a stop while the pipeline waits must cancel its work")
            return
        }
        work.cancel()
        #expect(wait.isCancelled)
        #expect(Self.describe(lifecycle.finish(.success("from the cache"))) == "finished(cancelled)")
    }

    /// Work handed over after the request stopped is cancelled on its own, whatever its kind.
    @Test func anItemCancelsAlone() {
        let wait = Task<Void, any Error> { try await Task.sleep(for: .seconds(60)) }
        let pipeline = Task<Void, Never> { try? await Task.sleep(for: .seconds(60)) }
        AnyRequest.CancellableWork.Item.wait(wait).cancel()
        AnyRequest.CancellableWork.Item.pipeline(pipeline).cancel()
        #expect(wait.isCancelled && pipeline.isCancelled)
    }

    // MARK: - What the lock guards beside it

    /// The finish that wins takes the handlers, once: a stop that finishes hands them out, a stop
    /// the pipeline finishes leaves them to the pipeline's finish, and a finish after the one that
    /// won calls nobody.
    @Test("handlers go to the finish that won", arguments: [
        (Start.stoppedBeforeStart, "start", 1, 0), (.running, "stop", 1, 0), (.runningPipelineFinishes, "stop", 0, 1),
        (.running, "finish", 1, 0), (.stopping, "finish", 1, 0), (.finished, "finish", 0, 0), (.ready, "finish", 0, 0),
    ])
    func handlersTaken(from start: Start, event: String, atTheEvent: Int, atTheNextFinish: Int) {
        var locked = start.locked()
        let taken: AnyRequest.Locked.HandlersToCall? = switch event {
        case "start": locked.feed { $0.start(Start.context, pipelineFinishesStops: false) }.1
        case "stop": locked.feed { $0.stop(.cancelled) }.1
        default: locked.finish(.success(2), metrics: Start.metrics).handlersToCall
        }
        #expect((taken?.completionHandlers.count ?? 0) == atTheEvent)
        let next = locked.finish(.success(3), metrics: Start.metrics).handlersToCall
        #expect((next?.completionHandlers.count ?? 0) == atTheNextFinish)
    }

    /// What the pipeline's finish returns and keeps: a stop's error wins and is kept in the metrics.
    @Test("finish keeps the metrics", arguments: [
        (Start.ready, "success", false), (.stoppedBeforeStart, "success", false), (.running, "success", true),
        (.runningPipelineFinishes, "success", true), (.stopping, "cancelled (metrics: cancelled)", true),
        (.finished, "success", true),
    ])
    func finishKeepsMetrics(from start: Start, outcome: String, kept: Bool) {
        var locked = start.locked()
        let finished = locked.finish(.success(2), metrics: Start.metrics)
        var text = Self.describe(finished.result)
        if let error = finished.metrics.error { text += " (metrics: \(Self.describe(.failure(error))))" }
        #expect(text == outcome)
        #expect((locked.metrics != nil) == kept)
    }

    /// Progress is reported only while the request is started and not finished: never after the
    /// finish, never before the start.
    @Test("progress", arguments: [
        (Start.ready, false), (.stoppedBeforeStart, false), (.running, true),
        (.runningPipelineFinishes, true), (.stopping, true), (.finished, false),
    ])
    func progress(from start: Start, reported: Bool) {
        var locked = AnyRequest.Locked(options: RequestOptions(target: .path("/"), method: .get, parameters: [:], headerFields: [:]))
        locked.addProgressHandler { _, _ in }
        locked.lifecycle = start.lifecycle()
        let report = locked.progress(.download, completedBytes: 10, totalBytes: .some(100))
        #expect((report != nil) == reported)
    }

    /// A completion handler added after the finish is called with the stored result; before it,
    /// it is kept for the finish.
    @Test("add a completion handler", arguments: [
        (Start.ready, "kept"), (.stoppedBeforeStart, "kept"), (.running, "kept"),
        (.runningPipelineFinishes, "kept"), (.stopping, "kept"), (.finished, "callNow(success)"),
    ])
    func addCompletionHandler(from start: Start, action: String) {
        var locked = start.locked()
        switch locked.addCompletionHandler(Start.handler) {
        case .kept: #expect(action == "kept")
        case .callNow(let result): #expect(action == "callNow(\(Self.describe(result)))")
        }
    }

    /// A cached reply reaches its listeners only while the request runs (a cancel during the
    /// cache read makes the reply go nowhere).
    @Test("cached reply", arguments: [
        (Start.ready, false), (.stoppedBeforeStart, false), (.running, true),
        (.runningPipelineFinishes, true), (.stopping, true), (.finished, false),
    ])
    func cachedReply(from start: Start, delivered: Bool) {
        #expect((start.locked().cachedReplyListeners() != nil) == delivered)
    }

    /// A new attempt forgets the last one's head and progress, and counts.
    @Test func attemptsStartAfresh() {
        var locked = Start.running.locked()
        locked.receive(head: ResponseHead(url: nil, status: 200, headerFields: [.contentLength: "100"]))
        #expect(locked.attempt.expectedBytes == 100)
        #expect(locked.beginAttempt() == 1)
        #expect(locked.beginAttempt() == 2)
        #expect(locked.attempt.head == nil)
        #expect(locked.attempt.expectedBytes == nil)
    }

    // MARK: - Descriptions to compare against the tables

    static func describe(_ phase: AnyRequest.StateMachine.Phase) -> String {
        switch phase {
        case .ready: "ready"
        case .stoppedBeforeStart: "stoppedBeforeStart"
        case .running: "running"
        case .stopping: "stopping"
        case .finished(_, let state): "finished(\(state))"
        }
    }

    static func describe(_ action: AnyRequest.StateMachine.StartAction) -> String {
        switch action {
        case .run: "run"
        case .finish(let finish): "finish(\(describe(finish.result)))"
        case .ignore: "ignore"
        }
    }

    static func describe(_ action: AnyRequest.StateMachine.StopAction) -> String {
        switch action {
        case .ignore: "ignore"
        case .cancel: "cancel"
        case .cancelAndFinish(_, let finish): "cancelAndFinish(\(describe(finish.result)))"
        }
    }

    static func describe(_ action: AnyRequest.StateMachine.FinishAction) -> String {
        switch action {
        case .finished(let finish): "finished(\(describe(finish.result)))"
        case .finishedBefore(let result): "finishedBefore(\(describe(result)))"
        case .notStarted: "notStarted"
        }
    }

    static func describe(_ result: AnyResult) -> String {
        switch result {
        case .success: "success"
        case .failure(.cancelled): "cancelled"
        case .failure(let error): "\(error)"
        }
    }
}

extension AnyRequest.Locked.AddAction {
    func expectKept() {
        guard case .kept = self else {
            Issue.record("expected the handler to be kept")
            return
        }
    }
}
