import Foundation

extension ChainRequest: RequestGroup {
    func begin(on service: Service) {
        enum Start { case again, cancelled, first }
        let start = storage.withLock { storage -> Start in
            guard storage.lifecycle.begin() else { return .again }
            storage.service = service
            guard storage.lifecycle.isCancelRequested else { return .first }
            return finish(&storage, failure(at: 0, in: storage, error: .cancelled)) ? .cancelled : .again
        }
        switch start {
        case .first: runStep(0)
        case .cancelled: deliver()
        case .again: break
        }
    }

    func observeResult(_ observer: @escaping @Sendable (Result<RequestValues, NetworkError>) -> Void) {
        if let result = storage.withLock({ $0.lifecycle.add(observer: observer) }) { observer(result) }
    }

    /// What comes after a step: the next one, the end of the chain, or nothing (it has finished).
    private enum Next {
        case send(Step, on: Service)
        case finish
        case stop
    }

    /// Sends step `index`, or finishes the chain with every value when there is no such step.
    private func runStep(_ index: Int) {
        let next = storage.withLock { storage -> Next in
            guard !storage.lifecycle.isFinished, let service = storage.service else { return .stop }
            guard storage.steps.indices.contains(index) else {
                let values = RequestValues(all: storage.values, requestIDs: storage.steps.map(\.part.id))
                return finish(&storage, .success(values)) ? .finish : .stop
            }
            return .send(storage.steps[index], on: service)
        }
        switch next {
        case .send(let step, let service):
            step.part.observeAnyResult { [self] result in stepFinished(index, step: step, with: result) }
            service.start(step.part)
        case .finish:
            deliver()
        case .stop:
            return
        }
    }

    /// Step `index` finished: fail the chain, or keep its value, call its callback and go on.
    private func stepFinished(_ index: Int, step: Step, with result: Result<any Sendable, NetworkError>) {
        enum Next { case failed, goOn, wait, ignored }
        let next = storage.withLock { storage -> Next in
            guard !storage.lifecycle.isFinished else { return .ignored }
            switch result {
            case .failure(let error):
                return finish(&storage, failure(at: index, in: storage, error: error)) ? .failed : .ignored
            case .success(let value):
                storage.values.append(value)
                guard let callback = step.callback else { return .goOn }
                storage.lifecycle.enqueue { [self] in runCallback(callback, of: index, with: value) }
                return .wait
            }
        }
        switch next {
        case .failed: deliver()
        case .goOn: runStep(index + 1)
        case .wait, .ignored: break
        }
    }

    /// Runs a step's callback (on the main actor), then the next step, unless it threw.
    @MainActor
    private func runCallback(_ callback: @MainActor @Sendable (ChainRequest, any Sendable) throws -> Void, of index: Int,
                             with value: any Sendable) {
        guard state == .running else { return }
        do {
            try callback(self, value)
        } catch {
            let failure = (error as? NetworkError) ?? .invalidRequest("chain step \(index): \(error)")
            let finished = storage.withLock { storage in finish(&storage, self.failure(at: index, in: storage, error: failure)) }
            if finished { deliver() }
            return
        }
        runStep(index + 1)
    }

    /// The chain's failure at `step`, naming the step's request when it has one.
    func failure(at step: Int, in storage: Storage, error: NetworkError) -> Result<RequestValues, NetworkError> {
        let id = storage.steps.indices.contains(step) ? storage.steps[step].part.id : nil
        return .failure(.chainFailed(step: step, requestID: id, error: error))
    }

    /// Stores the chain's result; false when it had one already.
    func finish(_ storage: inout Storage, _ result: Result<RequestValues, NetworkError>) -> Bool {
        var cancelled = false
        if case .failure(let failure) = result { cancelled = failure.isCancellation }
        return storage.lifecycle.finish(result, cancelled: cancelled)
    }

    /// Queues the handlers of the stored result and wakes its observers. Only the caller that
    /// finished the chain calls it, once it has cancelled what it had to.
    func deliver() {
        storage.withLock { $0.lifecycle.deliver(owner: self) }()
    }
}
