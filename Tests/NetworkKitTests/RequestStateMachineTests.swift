import Foundation
import Testing
@testable import NetworkKit

/// The request lifecycle's state machine as tables of phase × event → phase and action, with no
/// server and no queue: every pair, including the races load runs once found (a cancel during a
/// cache read, progress after the finish, a cancel as the request starts).
@Suite("Request lifecycle state machine")
struct RequestStateMachineTests {
    /// The phases a table starts from, each reached through the machine's own events.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case ready, stoppedBeforeStart, running, runningPipelineFinishes, stopping, finished

        var testDescription: String { rawValue }

        func lifecycle() -> AnyRequest.StateMachine {
            var lifecycle = AnyRequest.StateMachine(options: RequestOptions(target: .path("/"), method: .get, parameters: [:], headerFields: [:]))
            lifecycle.addCompletionHandler(Self.handler).expectKept()
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
                _ = lifecycle.finish(.success(1), metrics: Self.metrics)
            }
            return lifecycle
        }

        static let context = StartContext(registry: RequestRegistry())
        static let handler: AnyRequest.StateMachine.CompletionHandler = { _, _ in }
        static let metrics = RequestMetrics(id: RequestID(rawValue: 0), url: nil, method: .get, statusCode: nil, attempts: 1,
                                            duration: .zero, bytesSent: 0, bytesReceived: 0, error: nil)
    }

    @Test("start", arguments: [
        (Start.ready, "running", "run"),
        (.stoppedBeforeStart, "finished(cancelled)", "finish(cancelled, 1 handler)"),
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
        (.running, "finished(cancelled)", "cancelAndFinish(cancelled, 1 handler)"),
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

    /// The pipeline's finish: a stop wins over its result, an earlier finish over both, and the
    /// metrics keep the error the request finished with.
    @Test("finish", arguments: [
        (Start.ready, "ready", "success, no handlers to call"),
        (.stoppedBeforeStart, "stoppedBeforeStart", "success, no handlers to call"),
        (.running, "finished(finished)", "success, calls handlers"),
        (.runningPipelineFinishes, "finished(finished)", "success, calls handlers"),
        (.stopping, "finished(cancelled)", "cancelled (metrics: cancelled), calls handlers"),
        (.finished, "finished(finished)", "success, no handlers to call"),
    ])
    func finish(from start: Start, phase: String, action: String) {
        var lifecycle = start.lifecycle()
        let finished = lifecycle.finish(.success(2), metrics: Start.metrics)
        #expect(Self.describe(finished) == action)
        #expect(Self.describe(lifecycle.phase) == phase)
    }

    /// The commit before an act that cannot be undone (a download's file moved into place):
    /// allowed only while the request runs, and a stop after it changes nothing, so the finish
    /// that follows is the pipeline's own.
    @Test("commit, then stop, then finish", arguments: [
        (Start.ready, false, "ignore", "success, no handlers to call"),
        (.stoppedBeforeStart, false, "ignore", "success, no handlers to call"),
        (.running, true, "ignore", "success, calls handlers"),
        (.runningPipelineFinishes, true, "ignore", "success, calls handlers"),
        (.stopping, false, "ignore", "cancelled (metrics: cancelled), calls handlers"),
        (.finished, false, "ignore", "success, no handlers to call"),
    ])
    func commit(from start: Start, commits: Bool, stop: String, finish: String) {
        var lifecycle = start.lifecycle()
        #expect(lifecycle.commit() == commits)
        #expect(Self.describe(lifecycle.stop(.cancelled)) == stop)
        #expect(Self.describe(lifecycle.finish(.success(2), metrics: Start.metrics)) == finish)
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

    /// Progress is reported only while the request is started and not finished: never after the
    /// finish, never before the start.
    @Test("progress", arguments: [
        (Start.ready, false), (.stoppedBeforeStart, false), (.running, true),
        (.runningPipelineFinishes, true), (.stopping, true), (.finished, false),
    ])
    func progress(from start: Start, reported: Bool) {
        var lifecycle = start.lifecycle()
        lifecycle.addProgressHandler { _, _ in }
        let report = lifecycle.progress(.download, completedBytes: 10, totalBytes: .some(100))
        #expect((report != nil) == reported)
    }

    /// A completion handler added after the finish is called with the stored result; before it,
    /// it is kept for the finish.
    @Test("add a completion handler", arguments: [
        (Start.ready, "kept"), (.stoppedBeforeStart, "kept"), (.running, "kept"),
        (.runningPipelineFinishes, "kept"), (.stopping, "kept"), (.finished, "callNow(success)"),
    ])
    func addCompletionHandler(from start: Start, action: String) {
        var lifecycle = start.lifecycle()
        let taken = lifecycle.addCompletionHandler(Start.handler)
        switch taken {
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
        let lifecycle = start.lifecycle()
        #expect((lifecycle.cachedReplyListeners() != nil) == delivered)
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
        let finished = lifecycle.finish(.success("from the cache"), metrics: Start.metrics)
        #expect(Self.describe(finished) == "cancelled (metrics: cancelled), calls handlers")
    }

    /// Work handed over after the request stopped is cancelled on its own, whatever its kind.
    @Test func anItemCancelsAlone() {
        let wait = Task<Void, any Error> { try await Task.sleep(for: .seconds(60)) }
        let pipeline = Task<Void, Never> { try? await Task.sleep(for: .seconds(60)) }
        AnyRequest.CancellableWork.Item.wait(wait).cancel()
        AnyRequest.CancellableWork.Item.pipeline(pipeline).cancel()
        #expect(wait.isCancelled && pipeline.isCancelled)
    }

    /// A new attempt forgets the last one's head and progress, and counts.
    @Test func attemptsStartAfresh() {
        var lifecycle = Start.running.lifecycle()
        lifecycle.receive(head: ResponseHead(url: nil, status: 200, headerFields: [.contentLength: "100"]))
        #expect(lifecycle.attempt.expectedBytes == 100)
        #expect(lifecycle.beginAttempt() == 1)
        #expect(lifecycle.beginAttempt() == 2)
        #expect(lifecycle.attempt.head == nil)
        #expect(lifecycle.attempt.expectedBytes == nil)
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
        case .finish(let handlers): "finish(\(describe(handlers)))"
        case .ignore: "ignore"
        }
    }

    static func describe(_ action: AnyRequest.StateMachine.StopAction) -> String {
        switch action {
        case .ignore: "ignore"
        case .cancel: "cancel"
        case .cancelAndFinish(_, let handlers): "cancelAndFinish(\(describe(handlers)))"
        }
    }

    static func describe(_ handlers: AnyRequest.StateMachine.HandlersToCall) -> String {
        "\(describe(handlers.result)), \(handlers.completionHandlers.count) handler"
    }

    static func describe(_ action: AnyRequest.StateMachine.FinishAction) -> String {
        var text = describe(action.result)
        if let error = action.metrics.error { text += " (metrics: \(describe(.failure(error))))" }
        return text + (action.handlersToCall == nil ? ", no handlers to call" : ", calls handlers")
    }

    static func describe(_ result: AnyResult) -> String {
        switch result {
        case .success: "success"
        case .failure(.cancelled): "cancelled"
        case .failure(let error): "\(error)"
        }
    }
}

extension AnyRequest.StateMachine.AddAction {
    func expectKept() {
        guard case .kept = self else {
            Issue.record("expected the handler to be kept")
            return
        }
    }
}
