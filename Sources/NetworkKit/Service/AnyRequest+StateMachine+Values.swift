import Foundation

extension AnyRequest.StateMachine {
    /// A completion handler as the lifecycle keeps it: the typed layer (`Request<Output>`)
    /// wraps the caller's handler into one of these. Handlers run on the main actor.
    typealias CompletionHandler = @MainActor @Sendable (AnyRequest, AnyResult) -> Void
    /// A progress handler as the lifecycle keeps it.
    typealias ProgressHandler = @MainActor @Sendable (AnyRequest, TransferProgress) -> Void
    /// A state handler as the lifecycle keeps it.
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
    /// handlers on the main actor. The lifecycle hands it out once, to the finish that won.
    struct HandlersToCall {
        let result: AnyResult
        let state: RequestState
        let context: StartContext
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
