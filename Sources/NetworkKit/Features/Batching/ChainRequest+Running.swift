import Foundation

extension ChainRequest: RequestGroup {
    func begin(on service: Service) {
        let queue = service.configuration.callbackQueue
        let wake = storage.withLock { storage -> () -> Void in
            guard storage.landing.begin(callbackQueue: queue) else { return {} }
            storage.service = service
            if storage.landing.isCancelRequested { return land(&storage, failure(at: 0, in: storage, error: .cancelled)) }
            return {}
        }
        wake()
        runStep(0)
    }

    func observeResult(_ observer: @escaping @Sendable (Result<RequestValues, ChainError>) -> Void) {
        if let result = storage.withLock({ $0.landing.add(observer: observer) }) { observer(result) }
    }

    /// What comes after a step: the next one, the end of the chain, or nothing (it has landed).
    private enum Next {
        case send(Step, on: Service)
        case finish
        case stop
    }

    /// Sends step `index`, or lands the chain with every value when there is no such step.
    func runStep(_ index: Int) {
        let next = storage.withLock { storage -> Next in
            guard !storage.landing.hasLanded, let service = storage.service else { return .stop }
            guard storage.steps.indices.contains(index) else { return .finish }
            return .send(storage.steps[index], on: service)
        }
        switch next {
        case .send(let step, let service):
            step.part.observe { [self] result in stepLanded(index, step: step, with: result) }
            step.part.start(service)
        case .finish:
            let wake = storage.withLock { storage in
                land(&storage, .success(RequestValues(all: storage.values, requestIDs: storage.steps.map(\.part.id))))
            }
            wake()
        case .stop:
            return
        }
    }

    /// Step `index` landed: fail the chain, or keep its value, call its callback and go on.
    private func stepLanded(_ index: Int, step: Step, with result: Result<any Sendable, NetworkError>) {
        let wake = storage.withLock { storage -> () -> Void in
            guard !storage.landing.hasLanded else { return {} }
            switch result {
            case .failure(let error):
                return land(&storage, failure(at: index, in: storage, error: error))
            case .success(let value):
                storage.values.append(value)
                guard let callback = step.callback else { return {} }
                storage.landing.deliver { [self] in runCallback(callback, of: index, with: value) }
                return {}
            }
        }
        wake()
        if case .success = result, step.callback == nil { runStep(index + 1) }
    }

    /// Runs a step's callback (on the callback queue), then the next step, unless it threw.
    private func runCallback(_ callback: @Sendable (ChainRequest, any Sendable) throws -> Void, of index: Int,
                             with value: any Sendable) {
        guard state == .running else { return }
        do {
            try callback(self, value)
        } catch {
            let failure = (error as? NetworkError) ?? .invalidRequest("chain step \(index): \(error)")
            let wake = storage.withLock { storage in land(&storage, self.failure(at: index, in: storage, error: failure)) }
            wake()
            return
        }
        runStep(index + 1)
    }

    func failure(at step: Int, in storage: Storage, error: NetworkError) -> Result<RequestValues, ChainError> {
        let id = storage.steps.indices.contains(step) ? storage.steps[step].part.id : nil
        return .failure(ChainError(step: step, requestID: id, error: error))
    }

    func land(_ storage: inout Storage, _ result: Result<RequestValues, ChainError>) -> () -> Void {
        var cancelled = false
        if case .failure(let failure) = result { cancelled = failure.error.isCancellation }
        return storage.landing.land(result, cancelled: cancelled, owner: self)
    }
}
