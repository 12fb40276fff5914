import Foundation

/// Requests that depend on each other, sent one after another (YTKNetwork's `YTKChainRequest`):
/// each step's callback gets the step's value and may add the next request, built from it.
///
/// ```swift
/// let chain = ChainRequest()
/// chain.add(Request(path: "/register", method: .post, parser: JSONParser(contentKeyPath: "userId"))) { chain, userID in
///     chain.add(Request(path: "/users/\(userID)", parser: ModelParser(User.self)))
/// }
/// chain.addCompletionHandler { chain, result in print(result) }
/// service.start(chain)                       // or: let values = try await service.send(chain)
/// ```
///
/// A failed step stops the chain, which fails with ``NetworkError/chainFailed(step:requestID:error:)``
/// naming the step; when the last step has succeeded (and its callback returned without adding
/// another) the chain finishes with every step's value in order. Callbacks and handlers run on the
/// main actor.
public final class ChainRequest: Sendable {
    /// Called once, on the main actor, when the chain finishes, with the chain and every step's
    /// value or the failure.
    public typealias CompletionHandler = @MainActor @Sendable (ChainRequest, Result<RequestValues, NetworkError>) -> Void

    /// Everything that changes as the chain runs, under one lock.
    let storage = Protected(Storage())

    /// A chain's steps and where it is, guarded by `storage`'s lock.
    struct Storage {
        var steps: [Step] = []
        /// The values of the steps that succeeded, in order.
        var values: [any Sendable] = []
        /// Sends the steps, from start on.
        var service: Service?
        var lifecycle = RequestGroupStateMachine<ChainRequest>()
    }

    /// One step: its request and what to do with its value.
    struct Step: Sendable {
        let part: AnyRequest
        let callback: (@MainActor @Sendable (ChainRequest, any Sendable) throws -> Void)?
    }

    /// Creates an empty chain; add its first step with ``add(_:then:)``.
    public init() {}

    /// Adds a step that sends `request` once the steps before it have succeeded, and returns the
    /// request. `then` is called with the chain and the request's value, on the main actor, before
    /// the chain goes on: it may add the next step, built from the value. When it throws,
    /// the chain fails at this step with the error (a `NetworkError` as is, any other as
    /// `NetworkError.invalidRequest`). A step added after the chain has finished is never sent.
    @discardableResult
    public func add<Output>(
        _ request: Request<Output>,
        then callback: (@MainActor @Sendable (ChainRequest, Output) throws -> Void)? = nil
    ) -> Request<Output> {
        let typed = callback.map { callback in
            { @MainActor @Sendable (chain: ChainRequest, value: any Sendable) throws in
                guard let value = value as? Output else { return }
                try callback(chain, value)
            }
        }
        storage.withLock { storage in
            guard !storage.lifecycle.isFinished else { return }
            storage.steps.append(Step(part: request, callback: typed))
        }
        return request
    }

    /// The identities of the chain's requests so far, in step order.
    public var requestIDs: [RequestID] {
        storage.withLock { $0.steps.map(\.part.id) }
    }

    /// Where the chain is: ready, running, finished (succeeded or failed) or cancelled.
    public var state: RequestState {
        storage.withLock { $0.lifecycle.state }
    }

    /// Adds a handler called once, on the main actor, when the chain finishes.
    /// Handlers run in the order added; one added after the finish is called with the stored
    /// result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        storage.withLock { $0.lifecycle.add(handler, owner: self) }
    }

    /// Cancels the chain and the request of the step running. Running: the chain finishes at once
    /// with ``NetworkError/chainFailed(step:requestID:error:)`` whose error is
    /// `NetworkError.cancelled`, at the first step without a value, and no further step is sent. Not started yet: the requests of its steps are
    /// cancelled, and it finishes cancelled as soon as it is started. Finished: nothing happens.
    public func cancel() {
        let (finished, toCancel) = storage.withLock { storage -> (Bool, [AnyRequest]) in
            guard storage.lifecycle.requestCancel() else { return (false, []) }
            guard storage.lifecycle.isStarted else { return (false, storage.steps.map(\.part)) }
            let step = storage.values.count
            guard finish(&storage, failure(at: step, in: storage, error: .cancelled)) else { return (false, []) }
            return (true, storage.steps.indices.contains(step) ? [storage.steps[step].part] : [])
        }
        for part in toCancel { part.cancel() }
        if finished { deliver() }
    }
}
