import Foundation

/// A batch or a chain as `Service.start`, `send` and `result(of:)` drive it.
protocol RequestGroup: AnyObject, Sendable {
    /// How the group fails: `BatchError` or `ChainError`.
    associatedtype Failure: Error

    /// Starts the group's requests on `service`; nothing when it was started before.
    func begin(on service: Service)
    /// Calls `observer` with the group's result as soon as it exists (at once if it does).
    func observeResult(_ observer: @escaping @Sendable (Result<RequestValues, Failure>) -> Void)
    /// Cancels the group.
    func cancel()
}

/// What a batch or a chain keeps about landing, guarded by its owner's lock: where to deliver,
/// who waits for the result, and the result once it exists. Like a request, a group lands once.
struct GroupLanding<Owner: Sendable, Failure: Error> {
    typealias Outcome = Result<RequestValues, Failure>
    typealias Handler = @Sendable (Owner, Outcome) -> Void

    private(set) var state: RequestState = .ready
    /// The service's callback queue, from start on.
    private(set) var callbackQueue: DispatchQueue?
    private(set) var isCancelRequested = false
    private(set) var result: Outcome?
    private var handlers: [Handler] = []
    private var observers: [@Sendable (Outcome) -> Void] = []

    /// True once the group has a result.
    var hasLanded: Bool { result != nil }

    /// Moves ready → running, delivering on `queue`; false when the group was started before.
    mutating func begin(callbackQueue queue: DispatchQueue) -> Bool {
        guard callbackQueue == nil else { return false }
        callbackQueue = queue
        if !isCancelRequested { state = .running }
        return true
    }

    /// Records a `cancel()`; false when there is nothing to cancel (landed already). A group not
    /// started yet lands cancelled as soon as it is started.
    mutating func requestCancel() -> Bool {
        guard result == nil else { return false }
        isCancelRequested = true
        if callbackQueue == nil { state = .cancelled }
        return true
    }

    /// Adds a completion handler; one added after landing is queued at once with the result.
    mutating func add(_ handler: @escaping Handler, owner: Owner) {
        if let result, let callbackQueue {
            callbackQueue.async { handler(owner, result) }
        } else {
            handlers.append(handler)
        }
    }

    /// Adds an internal observer; returns the result instead when it exists already.
    mutating func add(observer: @escaping @Sendable (Outcome) -> Void) -> Outcome? {
        if result == nil { observers.append(observer) }
        return result
    }

    /// Queues `work` on the callback queue, in order with the handlers (call it under the lock).
    func deliver(_ work: @escaping @Sendable () -> Void) {
        callbackQueue?.async(execute: work)
    }

    /// Lands the group, once: stores `result` and queues the handlers on the callback queue, in
    /// the order added (under the lock, so nothing queued later by the owner runs before them).
    /// Returns what wakes the internal observers; call it after leaving the lock.
    mutating func land(_ result: Outcome, cancelled: Bool, owner: Owner) -> () -> Void {
        guard self.result == nil, let callbackQueue else { return {} }
        self.result = result
        state = cancelled ? .cancelled : .finished
        let handlers = self.handlers
        let observers = self.observers
        self.handlers = []
        self.observers = []
        if !handlers.isEmpty {
            callbackQueue.async { for handler in handlers { handler(owner, result) } }
        }
        return { for observer in observers { observer(result) } }
    }
}

extension Service {
    /// Starts `group` and waits for its result; cancelling the calling task cancels the group.
    func awaitResult<Group: RequestGroup>(of group: Group) async -> Result<RequestValues, Group.Failure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                group.observeResult { continuation.resume(returning: $0) }
                group.begin(on: self)
            }
        } onCancel: {
            group.cancel()
        }
    }
}
