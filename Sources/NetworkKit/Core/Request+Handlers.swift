import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Adds a handler called once, on the service's callback queue, when the request lands.
    /// Handlers run in the order added. One added after landing is called with the stored result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        let landed = life.withLock { life -> (Result<Output, NetworkError>, DispatchQueue)? in
            guard let result = life.result, let landing = life.landing else {
                life.completionHandlers.append(handler)
                return nil
            }
            return (result, landing.callbackQueue)
        }
        if let (result, queue) = landed {
            queue.async { handler(self, result) }
        }
    }

    /// Adds a handler called on the callback queue as the body uploads or downloads
    /// (coalesced to about one call per percent), never after the completion handlers.
    /// Add it before the request starts: a request started without progress handlers gets a
    /// completion-handler task that reports nothing along the way.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        life.withLock { $0.progressHandlers.append(handler) }
    }

    /// Adds a handler called on the callback queue when the request starts running and when it lands.
    public func addStateHandler(_ handler: @escaping StateHandler) {
        life.withLock { $0.stateHandlers.append(handler) }
    }

    /// Cancels the request. Running: the transfer stops and the handlers get `NetworkError.cancelled`.
    /// Not started yet: it lands cancelled as soon as it is started. Landed already: nothing happens.
    public func cancel() {
        let task = life.withLock { life -> URLSessionTask? in
            guard !life.state.isTerminal else { return nil }
            life.cancelRequested = true
            if life.landing == nil { life.state = .cancelled }
            return life.task
        }
        task?.cancel()
        finish(.failure(.cancelled))
    }

    /// Calls `observer` with the result as soon as it exists (right away if it already does).
    func observeResult(_ observer: @escaping @Sendable (Result<Output, NetworkError>) -> Void) {
        let result = life.withLock { life -> Result<Output, NetworkError>? in
            if life.result == nil { life.resultObservers.append(observer) }
            return life.result
        }
        if let result { observer(result) }
    }

    /// Lands the request, once: stores the result, wakes observers, then runs the handlers on
    /// the callback queue after dropping the request from its service.
    func finish(_ result: Result<Output, NetworkError>) {
        let state: RequestState
        if case .failure(.cancelled) = result { state = .cancelled } else { state = .finished }
        let landed = life.withLock { life -> (Callbacks, Landing)? in
            guard life.result == nil, let landing = life.landing else { return nil }
            life.result = result
            life.state = state
            let callbacks = Callbacks(observers: life.resultObservers, completion: life.completionHandlers,
                                      state: life.stateHandlers)
            life.completionHandlers = []
            life.progressHandlers = []
            life.stateHandlers = []
            life.resultObservers = []
            life.task = nil
            life.body = Data()
            return (callbacks, landing)
        }
        guard let (callbacks, landing) = landed else { return }
        for observer in callbacks.observers { observer(result) }
        let handlers = callbacks.completion
        let stateHandlers = callbacks.state
        guard !handlers.isEmpty || !stateHandlers.isEmpty else {
            // Nobody to call back (an awaited `send`): let go without a trip to the callback queue.
            landing.forget()
            return
        }
        landing.callbackQueue.async {
            landing.forget()
            for handler in stateHandlers { handler(self, state) }
            for handler in handlers { handler(self, result) }
        }
    }
}

extension Request {
    /// The callbacks taken out of the lifecycle when the request lands.
    fileprivate struct Callbacks {
        var observers: [@Sendable (Result<Output, NetworkError>) -> Void]
        var completion: [CompletionHandler]
        var state: [StateHandler]
    }
}
