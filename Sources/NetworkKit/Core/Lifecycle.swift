import Foundation

/// Where a started request's results go: the callback queue, and the service's map of running
/// requests, which holds the request from `begin` until it lands.
struct Delivery: Sendable {
    let callbackQueue: DispatchQueue
    let registry: RequestRegistry
}

/// What `cancel()` stops: the pipeline's own task, the current transfer, the wait before a retry.
struct RunningWork {
    var pipeline: Task<Void, Never>?
    var transfer: (any TransportTask)?
    var backoff: Task<Void, any Error>?

    func cancel() {
        transfer?.cancel()
        backoff?.cancel()
        pipeline?.cancel()
    }
}

/// A request's mutable state, guarded by the request's `lifecycle` lock.
struct Lifecycle<Output: Sendable> {
    var state: RequestState = .ready
    var cancelRequested = false
    var delivery: Delivery?
    /// What `cancel()` stops: the pipeline's own task (when `start` made one), the transfer of
    /// the current attempt, the wait before a retry.
    var pipelineTask: Task<Void, Never>?
    var transportTask: (any TransportTask)?
    var backoffTask: Task<Void, any Error>?
    /// Why the request was stopped (`cancel()`, a limit), once it was.
    var stopReason: NetworkError?
    /// True for downloads: a stopped request lands when its pipeline has closed its file, not at once.
    var landsFromPipeline = false
    var head: ResponseHead?
    /// The body length the head announced, when it can be trusted for progress.
    var expectedBytes: Int64?
    var attempts = 0
    var result: Result<Output, NetworkError>?
    var metrics: RequestMetrics?
    var completionHandlers: [Request<Output>.CompletionHandler] = []
    var progressHandlers: [Request<Output>.ProgressHandler] = []
    var stateHandlers: [Request<Output>.StateHandler] = []
    /// Internal observers (async `send`), called as soon as the result exists, off the callback queue.
    var resultObservers: [@Sendable (Result<Output, NetworkError>) -> Void] = []
    /// Internal observers of the cached reply a cache-then-network request delivers first.
    var cachedReplyObservers: [@Sendable (Reply<Output>) -> Void] = []
    var downloadThrottle = ProgressThrottle()
    var uploadThrottle = ProgressThrottle()

    /// A progress value and who to tell about it, on which queue.
    typealias ProgressReport = (progress: TransferProgress, handlers: [Request<Output>.ProgressHandler], queue: DispatchQueue)

    /// What to report about the value `progress` makes of this lifecycle, when there are progress
    /// handlers, the request has somewhere to deliver, and the throttle of the value's direction
    /// lets it through. Call it under the lock.
    mutating func progressReport(_ progress: (Self) -> TransferProgress) -> ProgressReport? {
        guard !progressHandlers.isEmpty, let delivery, result == nil else { return nil }
        var value = progress(self)
        // A switch, not a key path: a key path into this generic struct is built at run time on
        // every call, a cost each request would pay (BENCHMARKS.md).
        let passes = switch value.direction {
        case .download: downloadThrottle.shouldReport(&value)
        case .upload: uploadThrottle.shouldReport(&value)
        }
        guard passes else { return nil }
        return (value, progressHandlers, delivery.callbackQueue)
    }
}
