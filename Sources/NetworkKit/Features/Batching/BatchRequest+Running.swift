import Foundation

extension BatchRequest: RequestGroup {
    func begin(on service: Service) {
        let (finished, parts) = storage.withLock { storage -> (Bool, [AnyRequest]) in
            guard storage.lifecycle.begin() else { return (false, []) }
            storage.values = Array(repeating: nil, count: storage.parts.count)
            if storage.lifecycle.isCancelRequested {
                return (finish(&storage, .failure(failure(at: 0, in: storage.parts, error: .cancelled))), [])
            }
            if storage.parts.isEmpty { return (finish(&storage, .success(RequestValues(all: [], requestIDs: []))), []) }
            return (false, storage.parts)
        }
        if finished { deliver() }
        for (index, part) in parts.enumerated() {
            part.observeAnyResult { [self] result in requestFinished(at: index, with: result) }
        }
        for part in parts { service.start(part) }
    }

    func observeResult(_ observer: @escaping @Sendable (Result<RequestValues, NetworkError>) -> Void) {
        if let result = storage.withLock({ $0.lifecycle.add(observer: observer) }) { observer(result) }
    }

    /// One request finished: keep its value, report progress, and finish the batch when it is done
    /// (or at the first failure, cancelling the others first).
    private func requestFinished(at index: Int, with result: Result<any Sendable, NetworkError>) {
        let (finished, toCancel) = storage.withLock { storage -> (Bool, [AnyRequest]) in
            guard !storage.lifecycle.isFinished else { return (false, []) }
            storage.finishedCount += 1
            switch result {
            case .success(let value):
                storage.values[index] = value
            case .failure(let error):
                let failure = failure(at: index, in: storage.parts, error: error)
                if cancelsRemainingOnFailure {
                    let others = storage.parts.enumerated().filter { $0.offset != index }.map(\.element)
                    return (finish(&storage, .failure(failure)), others)
                }
                if storage.firstFailure == nil { storage.firstFailure = failure }
            }
            reportProgress(storage)
            guard storage.finishedCount == storage.parts.count else { return (false, []) }
            if let failure = storage.firstFailure { return (finish(&storage, .failure(failure)), []) }
            let values = RequestValues(all: storage.values.compactMap { $0 }, requestIDs: storage.parts.map(\.id))
            return (finish(&storage, .success(values)), [])
        }
        // The others finish cancelled (their results are ignored) before anyone hears of the
        // failure.
        for part in toCancel { part.cancel() }
        if finished { deliver() }
    }

    /// Queues the progress handlers (under the lock, so they run before the completion handlers).
    private func reportProgress(_ storage: Storage) {
        let handlers = storage.progressHandlers
        guard !handlers.isEmpty else { return }
        let progress = BatchProgress(completed: storage.finishedCount, total: storage.parts.count)
        storage.lifecycle.enqueue { for handler in handlers { handler(self, progress) } }
    }

    /// The batch's failure at `index` (the request there, when there is one) because of `error`.
    func failure(at index: Int, in parts: [AnyRequest], error: NetworkError) -> NetworkError {
        .batchFailed(index: index, requestID: parts.indices.contains(index) ? parts[index].id : nil, error: error)
    }

    /// Stores the batch's result; false when it had one already.
    func finish(_ storage: inout Storage, _ result: Result<RequestValues, NetworkError>) -> Bool {
        var cancelled = false
        if case .failure(let failure) = result { cancelled = failure.isCancellation }
        return storage.lifecycle.finish(result, cancelled: cancelled)
    }

    /// Queues the handlers of the stored result and wakes its observers. Only the caller that
    /// finished the batch calls it, once it has cancelled what it had to.
    func deliver() {
        storage.withLock { $0.lifecycle.deliver(owner: self) }()
    }
}
