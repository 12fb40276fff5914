import Foundation

/// A batch or a chain as `Service.start`, `send` and `result(of:)` drive it.
protocol RequestGroup: AnyObject, Sendable {
    /// Starts the group's requests on `service`; nothing when it was started before.
    func begin(on service: Service)
    /// Calls `observer` with the group's result as soon as it exists (at once if it does).
    func observeResult(_ observer: @escaping @Sendable (Result<RequestValues, NetworkError>) -> Void)
    /// Cancels the group.
    func cancel()
}

/// A batch's or a chain's state machine, the group's counterpart of `AnyRequest.StateMachine`, guarded by
/// its owner's lock: its state, who waits for the result, and the result once it exists. Like a
/// request, a group finishes once, and its handlers run on the main actor.
///
/// Finishing takes two steps: `finish` stores the result (so nothing else can finish the group),
/// then, after the owner has cancelled what it had to, `deliver` queues the handlers and wakes the
/// observers, so they find the group's requests settled.
struct RequestGroupStateMachine<Owner: Sendable> {
    typealias GroupResult = Result<RequestValues, NetworkError>
    typealias Handler = @MainActor @Sendable (Owner, GroupResult) -> Void

    private(set) var state: RequestState = .ready
    /// True from start on.
    private(set) var isStarted = false
    private(set) var isCancelRequested = false
    private(set) var result: GroupResult?
    /// True once the handlers of the result have been queued.
    private var isDelivered = false
    private var handlers: [Handler] = []
    private var observers: [@Sendable (GroupResult) -> Void] = []

    /// True once the group has a result.
    var isFinished: Bool { result != nil }

    /// Moves ready → running; false when the group was started before.
    mutating func begin() -> Bool {
        guard !isStarted else { return false }
        isStarted = true
        if !isCancelRequested { state = .running }
        return true
    }

    /// Records a `cancel()`; false when there is nothing to cancel (finished already). A group not
    /// started yet finishes cancelled as soon as it is started.
    mutating func requestCancel() -> Bool {
        guard result == nil else { return false }
        isCancelRequested = true
        if !isStarted { state = .cancelled }
        return true
    }

    /// Adds a completion handler; one added after delivery is queued at once with the result.
    mutating func add(_ handler: @escaping Handler, owner: Owner) {
        if isDelivered, let result {
            MainActorQueue.async { handler(owner, result) }
        } else {
            handlers.append(handler)
        }
    }

    /// Adds an internal observer; returns the result instead when it has been delivered.
    mutating func add(observer: @escaping @Sendable (GroupResult) -> Void) -> GroupResult? {
        guard isDelivered, let result else {
            observers.append(observer)
            return nil
        }
        return result
    }

    /// Queues `work` on the main actor, in order with the handlers (call it under the lock), once
    /// the group has started.
    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        if isStarted { MainActorQueue.async(work) }
    }

    /// Stores `result`, once, and returns true; false when the group had finished or was never
    /// started. Call `deliver` next.
    mutating func finish(_ result: GroupResult, cancelled: Bool) -> Bool {
        guard self.result == nil, isStarted else { return false }
        self.result = result
        state = cancelled ? .cancelled : .finished
        return true
    }

    /// Queues the handlers on the main actor in the order added (under the lock, so one added
    /// later runs after them) and returns what wakes the internal observers: call it after
    /// leaving the lock.
    mutating func deliver(owner: Owner) -> () -> Void {
        guard !isDelivered, let result else { return {} }
        isDelivered = true
        let handlers = self.handlers
        let observers = self.observers
        self.handlers = []
        self.observers = []
        if !handlers.isEmpty {
            MainActorQueue.async { for handler in handlers { handler(owner, result) } }
        }
        return { for observer in observers { observer(result) } }
    }
}

extension Service {
    /// Starts `group` and waits for its result; cancelling the calling task cancels the group.
    func awaitResult(of group: some RequestGroup) async -> Result<RequestValues, NetworkError> {
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
