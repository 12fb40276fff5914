import Foundation

/// What `start` gives a request: the service's registry, which holds the request from start
/// until it finishes.
struct StartContext: Sendable {
    let registry: RequestRegistry
}

extension AnyRequest {
    /// A request's lifecycle as a state machine: its phase alone. Events come in as calls, the
    /// actions to take come back as values. It holds no lock, touches no queue, keeps no data and
    /// calls no handler, so every pair of phase and event is tested as a table
    /// (`RequestStateMachineTests`). `AnyRequest` keeps it in `Locked`, beside the request's data,
    /// under one lock, and carries out its actions.
    ///
    ///     ready ──start──▶ running ──finish──▶ finished
    ///       │                 ├──stop──▶ finished (with the stop's error)
    ///       │                 └──stop, when the pipeline must clean up first──▶ stopping ──finish──▶ finished
    ///       └──stop──▶ stoppedBeforeStart ──start──▶ finished (with the stop's error)
    ///
    /// A request finishes once: the first finish wins, and every later one learns the result it
    /// finished with. An action that finishes the request carries a `Finish`; nothing is reported
    /// after it.
    struct StateMachine {
        /// Where the request is.
        enum Phase {
            /// Created, not started.
            case ready
            /// Stopped (`cancel()`) before it was started: it finishes with `reason` when started.
            case stoppedBeforeStart(reason: NetworkError)
            /// Started: its pipeline is working on it.
            case running(Running)
            /// Stopped while its pipeline cleans up (a download closes its file, a cache-then-network
            /// request waits for its cached value's handlers): it finishes with `reason` when the
            /// pipeline finishes it.
            case stopping(Running, reason: NetworkError)
            /// Finished with `result`; a late completion handler is called with it.
            case finished(result: AnyResult, state: RequestState)
        }

        /// A started request's context and what `cancel()` stops.
        struct Running {
            var context: StartContext
            /// True when a stop leaves finishing to the pipeline (see `Phase.stopping`).
            var pipelineFinishesStops: Bool
            var work = CancellableWork()
            /// True once the pipeline committed the request's result (a download's file moved
            /// into place): a stop then changes nothing, and the request finishes with it.
            var isCommitted = false
        }

        private(set) var phase: Phase = .ready

        /// The public face of `phase`.
        var state: RequestState {
            switch phase {
            case .ready: .ready
            case .stoppedBeforeStart: .cancelled
            case .running, .stopping: .running
            case .finished(_, let state): state
            }
        }

        /// True once the request was stopped or has finished: its pipeline should end.
        var isStoppedOrFinished: Bool {
            switch phase {
            case .ready, .running: false
            case .stoppedBeforeStart, .stopping, .finished: true
            }
        }

        /// The result, once the request has finished.
        var result: AnyResult? {
            guard case .finished(let result, _) = phase else { return nil }
            return result
        }

        /// True once the request has finished.
        var isFinished: Bool {
            if case .finished = phase { true } else { false }
        }

        /// True while the request is started and not finished: what it reports now precedes
        /// its finish.
        var isActive: Bool {
            switch phase {
            case .running, .stopping: true
            case .ready, .stoppedBeforeStart, .finished: false
            }
        }
    }
}

// MARK: - Events

/// An action of the lifecycle that may finish the request: `Locked` takes the handlers to call
/// for its `finish`, in one place.
protocol LifecycleAction {
    /// The finish this action carries out; nil when the request does not finish now.
    var finish: AnyRequest.StateMachine.Finish? { get }
}

extension AnyRequest.StateMachine {
    /// The request finished now: with what, in which public state, and the context it leaves.
    struct Finish {
        let result: AnyResult
        let state: RequestState
        let context: StartContext
    }

    /// What to do after `start`.
    enum StartAction: LifecycleAction {
        /// Run the pipeline; enter the registry (under the lock: a stop right after must find it
        /// there) and tell the state handlers.
        case run
        /// It was stopped before start: finish at once.
        case finish(Finish)
        /// Started before: nothing to do.
        case ignore

        var finish: Finish? {
            if case .finish(let finish) = self { finish } else { nil }
        }
    }

    mutating func start(_ context: StartContext, pipelineFinishesStops: Bool) -> StartAction {
        switch phase {
        case .ready:
            phase = .running(Running(context: context, pipelineFinishesStops: pipelineFinishesStops))
            return .run
        case .stoppedBeforeStart(let reason):
            return .finish(finish(with: .failure(reason), context: context))
        case .running, .stopping, .finished:
            return .ignore
        }
    }

    /// What to do after `stop`.
    enum StopAction: LifecycleAction {
        /// Nothing (not started yet, or stopped or finished already).
        case ignore
        /// Cancel the running work; the pipeline finishes the request.
        case cancel(AnyRequest.CancellableWork)
        /// Cancel the running work and finish now.
        case cancelAndFinish(AnyRequest.CancellableWork, Finish)

        var finish: Finish? {
            if case .cancelAndFinish(_, let finish) = self { finish } else { nil }
        }
    }

    /// `cancel()`, or a limit the kit enforces: the request is to finish with `reason`.
    mutating func stop(_ reason: NetworkError) -> StopAction {
        switch phase {
        case .ready:
            phase = .stoppedBeforeStart(reason: reason)
            return .ignore
        case .running(let running) where running.isCommitted:
            return .ignore
        case .running(let running) where running.pipelineFinishesStops:
            phase = .stopping(running, reason: reason)
            return .cancel(running.work)
        case .running(let running):
            return .cancelAndFinish(running.work, finish(with: .failure(reason), context: running.context))
        case .stoppedBeforeStart, .stopping, .finished:
            return .ignore
        }
    }

    /// The pipeline is about to do what cannot be undone (move a download's file into place):
    /// true, and later stops are ignored, while the request runs; false once it was stopped or
    /// finished, and the pipeline must not do it. One decision under the lock that `stop` takes,
    /// so a file is in place exactly when the request succeeds.
    mutating func commit() -> Bool {
        guard case .running(var running) = phase else { return false }
        running.isCommitted = true
        phase = .running(running)
        return true
    }

    /// Whether work handed over by the pipeline is kept for `cancel()` or must stop at once.
    enum AttachAction: Equatable {
        case kept
        case cancelAtOnce
    }

    /// The pipeline hands over something `cancel()` must stop.
    mutating func attach(_ item: AnyRequest.CancellableWork.Item) -> AttachAction {
        guard case .running(var running) = phase else { return .cancelAtOnce }
        running.work.keep(item)
        phase = .running(running)
        return .kept
    }

    /// What the pipeline's `finish` comes to.
    enum FinishAction: LifecycleAction {
        /// This finish won: the request finished now (with the stop's error, if it was stopped).
        case finished(Finish)
        /// An earlier finish won: the request finished with `result`.
        case finishedBefore(result: AnyResult)
        /// The request never started: there is nobody to tell.
        case notStarted

        var finish: Finish? {
            if case .finished(let finish) = self { finish } else { nil }
        }
    }

    /// The pipeline is done with `result`. A stop wins over it; an earlier finish wins over both.
    mutating func finish(_ result: AnyResult) -> FinishAction {
        switch phase {
        case .running(let running):
            .finished(finish(with: result, context: running.context))
        case .stopping(let running, let reason):
            .finished(finish(with: .failure(reason), context: running.context))
        case .finished(let earlier, _):
            .finishedBefore(result: earlier)
        case .ready, .stoppedBeforeStart:
            .notStarted
        }
    }

    private mutating func finish(with result: AnyResult, context: StartContext) -> Finish {
        let state: RequestState = if case .failure(.cancelled) = result { .cancelled } else { .finished }
        phase = .finished(result: result, state: state)
        return Finish(result: result, state: state, context: context)
    }
}

// MARK: - What the lock guards

extension AnyRequest {
    /// Everything a request's one lock guards: its lifecycle, what it asks for, the record of its
    /// current attempt, its metrics and who listens. The lifecycle decides; this keeps the data
    /// and applies the rules that read both (progress and handlers only while the request is
    /// active, a late completion handler called with the result).
    struct Locked {
        /// The request's phase.
        var lifecycle = StateMachine()
        /// What the request asks for: set before start, read once at start.
        var options: RequestOptions
        /// The current attempt: its count, response head, expected length and progress throttles.
        private(set) var attempt = AttemptRecord()
        /// What was measured, once the request has finished.
        private(set) var metrics: RequestMetrics?
        private var handlers = Handlers()

        init(options: RequestOptions) {
            self.options = options
        }

        /// Feeds an event to the lifecycle; when its action finishes the request, takes the
        /// handlers to call (they are handed out once, to the finish that won).
        mutating func feed<Action: LifecycleAction>(_ event: (inout StateMachine) -> Action) -> (Action, HandlersToCall?) {
            let action = event(&lifecycle)
            guard let finish = action.finish else { return (action, nil) }
            let taken = handlers
            handlers = Handlers()
            return (action, HandlersToCall(finish: finish, completionHandlers: taken.completion,
                                           stateHandlers: taken.state, resultObservers: taken.resultObservers))
        }

        /// The pipeline's finish: what the request finished with, the metrics as kept (with the
        /// error it finished with), and the handlers to call when this finish won.
        mutating func finish(_ result: AnyResult, metrics: RequestMetrics)
            -> (result: AnyResult, metrics: RequestMetrics, handlersToCall: HandlersToCall?) {
            let (action, handlersToCall) = feed { $0.finish(result) }
            let final: AnyResult
            switch action {
            case .notStarted: return (result, metrics, nil)
            case .finishedBefore(let earlier): final = earlier
            case .finished(let finish): final = finish.result
            }
            var kept = metrics
            if case .failure(let error) = final { kept.error = error }
            self.metrics = kept
            return (final, kept, handlersToCall)
        }
    }
}

// MARK: - Attempts and progress

extension AnyRequest.Locked {
    /// A new attempt is about to be sent: count it, forget the last one's response and progress.
    mutating func beginAttempt() -> Int {
        attempt = AttemptRecord(count: attempt.count + 1)
        return attempt.count
    }

    /// The business status the current attempt's parsers read.
    mutating func read(_ status: BusinessStatus?) {
        attempt.businessStatus = status
    }

    /// The response head of the current attempt (or of the cache entry that answers).
    mutating func receive(head: ResponseHead) {
        attempt.head = head
        attempt.expectedBytes = head.deliveredLength
    }

    /// A download's file will be `total` bytes long.
    mutating func expectBody(total: Int64?) {
        attempt.expectedBytes = total
    }

    /// Progress to report: nil unless there are progress handlers, the request is started and not
    /// finished, and the throttle of the value's direction lets it through. `totalBytes` nil
    /// takes the length the head announced (downloads).
    mutating func progress(_ direction: TransferProgress.Direction, completedBytes: Int64,
                           totalBytes: Int64?? = nil) -> ProgressReport? {
        guard !handlers.progress.isEmpty, lifecycle.isActive else { return nil }
        var value = TransferProgress(direction: direction, completedBytes: completedBytes,
                                     totalBytes: totalBytes ?? attempt.expectedBytes)
        guard attempt.shouldReport(&value) else { return nil }
        return ProgressReport(progress: value, handlers: handlers.progress)
    }
}

// MARK: - Handlers

extension AnyRequest.Locked {
    /// What to do after adding a completion handler.
    enum AddAction {
        /// Kept for the finish.
        case kept
        /// Finished already: call it with the result.
        case callNow(AnyResult)
    }

    mutating func addCompletionHandler(_ handler: @escaping CompletionHandler) -> AddAction {
        if let result = lifecycle.result { return .callNow(result) }
        handlers.completion.append(handler)
        return .kept
    }

    /// Progress handlers added after the finish are dropped: there is no progress left.
    mutating func addProgressHandler(_ handler: @escaping ProgressHandler) {
        if lifecycle.isFinished { return }
        handlers.progress.append(handler)
    }

    mutating func addStateHandler(_ handler: @escaping StateHandler) {
        if lifecycle.isFinished { return }
        handlers.state.append(handler)
    }

    /// Keeps `observer` for the finish; returns the result instead when there is one.
    mutating func observeResult(_ observer: @escaping @Sendable (AnyResult) -> Void) -> AnyResult? {
        if let result = lifecycle.result { return result }
        handlers.resultObservers.append(observer)
        return nil
    }

    mutating func observeCachedReply(_ observer: @escaping @Sendable (CachedReply) -> Void) {
        if lifecycle.isFinished { return }
        handlers.cachedReplyObservers.append(observer)
    }

    /// Who hears a cache-then-network request's cached reply: nil unless it is started and not
    /// finished.
    func cachedReplyListeners() -> CachedReplyListeners? {
        guard lifecycle.isActive else { return nil }
        return CachedReplyListeners(completionHandlers: handlers.completion, observers: handlers.cachedReplyObservers)
    }

    /// A state change to report: nil when no state handler listens.
    func stateReport(_ state: RequestState) -> StateReport? {
        handlers.state.isEmpty ? nil : StateReport(state: state, handlers: handlers.state)
    }
}

extension AnyRequest.Locked {
    /// A completion handler as the request keeps it: the typed layer (`Request<Output>`)
    /// wraps the caller's handler into one of these. Handlers run on the main actor.
    typealias CompletionHandler = @MainActor @Sendable (AnyRequest, AnyResult) -> Void
    /// A progress handler as the request keeps it.
    typealias ProgressHandler = @MainActor @Sendable (AnyRequest, TransferProgress) -> Void
    /// A state handler as the request keeps it.
    typealias StateHandler = @MainActor @Sendable (AnyRequest, RequestState) -> Void

    /// Everyone to tell about the request, until it finishes.
    struct Handlers {
        var completion: [CompletionHandler] = []
        var progress: [ProgressHandler] = []
        var state: [StateHandler] = []
        /// The kit's own observers (an awaiting `send`, a batch), called as soon as the result
        /// exists, where it came to exist (not on the main actor).
        var resultObservers: [@Sendable (AnyResult) -> Void] = []
        /// The kit's own observers of the cached reply a cache-then-network request delivers first.
        var cachedReplyObservers: [@Sendable (CachedReply) -> Void] = []
    }

    /// The handlers and observers a request that just finished calls after the lock, and with
    /// what: leave the registry, tell the observers, then queue the state and completion
    /// handlers on the main actor. `feed` hands it out once, to the finish that won.
    struct HandlersToCall {
        /// The finish that won: the result, the public state and the context to leave.
        let finish: AnyRequest.StateMachine.Finish
        let completionHandlers: [CompletionHandler]
        let stateHandlers: [StateHandler]
        let resultObservers: [@Sendable (AnyResult) -> Void]
    }

    /// A state change and its handlers, queued under the lock so it precedes the finish.
    struct StateReport {
        let state: RequestState
        let handlers: [StateHandler]
    }

    /// A progress value and its handlers, queued under the lock so it precedes the finish.
    struct ProgressReport {
        let progress: TransferProgress
        let handlers: [ProgressHandler]
    }

    /// Who hears a cached reply: the completion handlers and the kit's own observers.
    struct CachedReplyListeners {
        let completionHandlers: [CompletionHandler]
        let observers: [@Sendable (CachedReply) -> Void]
    }
}

/// The current attempt of a request, as its lifecycle records it.
struct AttemptRecord {
    /// How many attempts were sent, this one included.
    var count = 0
    /// Its response head, once it has arrived.
    var head: ResponseHead?
    /// The business status its parsers read through an envelope.
    var businessStatus: BusinessStatus?
    /// The body length to report progress against, when it can be trusted.
    var expectedBytes: Int64?
    var downloadThrottle = ProgressThrottle()
    var uploadThrottle = ProgressThrottle()

    /// Whether `progress` is reported, through the throttle of its direction (which may adjust it).
    mutating func shouldReport(_ progress: inout TransferProgress) -> Bool {
        switch progress.direction {
        case .download: downloadThrottle.shouldReport(&progress)
        case .upload: uploadThrottle.shouldReport(&progress)
        }
    }
}

extension CachedReply {
    /// The reply as the typed layer hands it out; nil if the value is not an `Output`.
    func typed<Output>(as _: Output.Type = Output.self) -> Reply<Output>? {
        guard let value = value as? Output else { return nil }
        return Reply(value: value, head: head, metrics: metrics, businessStatus: nil)
    }
}

extension Result where Success == any Sendable, Failure == NetworkError {
    /// The result as the typed layer hands it out. The parser of a `Request<Output>` produces an
    /// `Output`, so the cast holds; were it ever to fail, the request fails with a parse error
    /// rather than the process.
    func typed<Output>(as _: Output.Type = Output.self) -> Result<Output, NetworkError> {
        switch self {
        case .success(let value as Output):
            .success(value)
        case .success(let value):
            .failure(.parse(ParseError(parser: "request", reason: "the parser produced a \(type(of: value)), not a \(Output.self)")))
        case .failure(let error):
            .failure(error)
        }
    }
}

extension AnyRequest {
    /// What `cancel()` stops while a request runs: its pipeline's task, the transfer of the current
    /// attempt, and a wait (before a retry, or for a cache entry another request is fetching).
    struct CancellableWork: Sendable {
        private var pipeline: Task<Void, Never>?
        private var transfer: (any TransportTask)?
        private var wait: Task<Void, any Error>?

        /// One of the three, as the pipeline hands it over.
        enum Item: Sendable {
            case pipeline(Task<Void, Never>)
            case transfer(any TransportTask)
            case wait(Task<Void, any Error>)

            /// Stops this item: kept alone, then cancelled with all of it, so `keep` is the one
            /// place that takes an item apart.
            func cancel() {
                var alone = CancellableWork()
                alone.keep(self)
                alone.cancel()
            }
        }

        /// Keeps `item` in its slot, in place of the one before of its kind (the last attempt's
        /// transfer, the last wait).
        mutating func keep(_ item: Item) {
            switch item {
            case .pipeline(let task): pipeline = task
            case .transfer(let task): transfer = task
            case .wait(let task): wait = task
            }
        }

        /// Stops all of it.
        func cancel() {
            transfer?.cancel()
            wait?.cancel()
            pipeline?.cancel()
        }
    }
}
