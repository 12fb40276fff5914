import Foundation

/// Several requests, of any output types, started together and reported as one (YTKNetwork's
/// `YTKBatchRequest`): one completion when all of them succeed, with their values in the order
/// added, or the first failure at once.
///
/// ```swift
/// let batch = BatchRequest()
/// let feed = batch.add(Request(path: "/feed", parser: ModelParser([Entrance].self)))
/// let avatar = batch.add(Request(path: "/avatar.png"))
/// batch.addCompletionHandler { batch, result in
///     if case .success(let values) = result { show(values[feed], values[avatar]) }
/// }
/// service.start(batch)                       // or: let values = try await service.send(batch)
/// ```
///
/// When a request fails, the batch fails at once with ``NetworkError/batchFailed(index:requestID:error:)``
/// naming it, and cancels the others (unless ``cancelsRemainingOnFailure`` is false). Handlers are
/// called in the order added, each exactly once, on the main actor, like a request's.
public final class BatchRequest: Sendable {
    /// Called once, on the main actor, when the batch finishes, with the batch and the values in
    /// order or the first failure.
    public typealias CompletionHandler = @MainActor @Sendable (BatchRequest, Result<RequestValues, NetworkError>) -> Void
    /// Called on the main actor each time one of the batch's requests finishes, with how many have.
    public typealias ProgressHandler = @MainActor @Sendable (BatchRequest, BatchProgress) -> Void

    /// Whether the first failure cancels the requests still running (true by default). When
    /// false they run to their end and the batch finishes after the last, with the first failure.
    public let cancelsRemainingOnFailure: Bool
    /// Everything that changes as the batch runs, under one lock.
    let storage = Protected(Storage())

    /// A batch's requests and progress, guarded by `storage`'s lock.
    struct Storage {
        var parts: [AnyRequest] = []
        /// Each request's value once it has one, by position.
        var values: [(any Sendable)?] = []
        var finishedCount = 0
        /// The first failure, kept until the last request finishes (`cancelsRemainingOnFailure`
        /// false).
        var firstFailure: NetworkError?
        var progressHandlers: [ProgressHandler] = []
        var lifecycle = RequestGroupStateMachine<BatchRequest>()
    }

    /// Creates an empty batch; add its requests with ``add(_:)`` before starting it.
    public init(cancelsRemainingOnFailure: Bool = true) {
        self.cancelsRemainingOnFailure = cancelsRemainingOnFailure
    }

    /// Adds `request` to the batch and returns it, to read its value from the results later with
    /// `values[request]`. Add every request before the batch starts: one added later is not
    /// part of it (it is neither started nor waited for).
    @discardableResult
    public func add<Output>(_ request: Request<Output>) -> Request<Output> {
        storage.withLock { storage in
            guard storage.lifecycle.state == .ready else { return }
            storage.parts.append(request)
        }
        return request
    }

    /// The identities of the batch's requests, in the order added.
    public var requestIDs: [RequestID] {
        storage.withLock { $0.parts.map(\.id) }
    }

    /// Where the batch is: ready, running, finished (succeeded or failed) or cancelled.
    public var state: RequestState {
        storage.withLock { $0.lifecycle.state }
    }

    /// Adds a handler called once, on the main actor, when the batch finishes.
    /// Handlers run in the order added; one added after the finish is called with the stored
    /// result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        storage.withLock { $0.lifecycle.add(handler, owner: self) }
    }

    /// Adds a handler called on the main actor each time one of the batch's requests finishes,
    /// never after the completion handlers.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        storage.withLock { $0.progressHandlers.append(handler) }
    }

    /// Cancels the batch and every request of it. Running: the batch finishes at once with
    /// ``NetworkError/batchFailed(index:requestID:error:)`` whose error is `NetworkError.cancelled`,
    /// at the first request without a value. Not started yet: its requests are cancelled, and it finishes cancelled as soon as it
    /// is started. Finished: nothing happens.
    public func cancel() {
        let (finished, parts) = storage.withLock { storage -> (Bool, [AnyRequest]) in
            guard storage.lifecycle.requestCancel() else { return (false, []) }
            guard storage.lifecycle.isStarted else { return (false, storage.parts) }
            let index = storage.values.firstIndex { $0 == nil } ?? 0
            let finished = finish(&storage, .failure(failure(at: index, in: storage.parts, error: .cancelled)))
            return (finished, finished ? storage.parts : [])
        }
        for part in parts { part.cancel() }
        if finished { deliver() }
    }
}
