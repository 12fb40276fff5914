import Foundation

/// The consumers' side of `StreamSink`: item handlers, and the sequence (`ItemStream`) that
/// takes held items or parses the chunks held for it in its own task.
extension StreamSink {
    /// Adds an item handler; items parsed from then on reach it.
    func addHandler(_ handler: @escaping @MainActor @Sendable (Item) -> Void) {
        flow.withLock { $0.handlers.append(handler) }
    }

    /// An `ItemStream` iterates `request`: items are held for it from now on, and when no handler
    /// was added it parses the chunks itself.
    func attachSequence(of request: AnyRequest) {
        flow.withLock { flow in
            flow.sequenceAttached = true
            flow.sequenceParses = flow.handlers.isEmpty
            flow.request = request
        }
    }

    /// What the iterator does next.
    private enum Take {
        case items([Item])
        case parse(Data)
        case end(Result<[Item], NetworkError>)
        case wait
    }

    /// Every item held for the sequence, in order; none once the stream ended as it should, the
    /// error once it failed. Parses the chunks held for it, and waits while there are none and
    /// the stream goes on. A parser's error stops the request.
    func nextItems() async -> Result<[Item], NetworkError> {
        while true {
            switch take() {
            case .items(let items):
                return .success(items)
            case .end(let end):
                return end
            case .parse(let chunk):
                let result: Result<[Item], NetworkError>
                do {
                    result = .success(try parsed { try $0.parse(chunk) })
                } catch {
                    result = .failure(error)
                }
                let handedOut = parsedChunk(result)
                // A part that completed no item: take the next.
                if case .success(let items) = handedOut, items.isEmpty { continue }
                return handedOut
            case .wait:
                await withCheckedContinuation { (continuation: Consumer) in
                    let now = flow.withLock { flow -> Bool in
                        guard Self.mustWait(flow) else { return true }
                        flow.consumer = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
        }
    }

    /// The iterator's next step, under the lock; a transport waiting for room reads on.
    private func take() -> Take {
        let (take, producer) = flow.withLock { flow -> (Take, Producer?) in
            let take = Self.take(from: &flow)
            if case .wait = take { return (take, nil) }
            return (take, flow.producerToWake(limit: limit, byteLimit: unparsedByteLimit))
        }
        producer?.resume()
        return take
    }

    /// The held items, else the next chunk to parse, else the end; `.wait` when there is none yet.
    private static func take(from flow: inout Flow) -> Take {
        if !flow.buffered.isEmpty {
            var items: [Item] = []
            swap(&items, &flow.buffered)
            return .items(items)
        }
        if !flow.unparsed.isEmpty {
            let chunk = flow.unparsed.removeFirst()
            flow.unparsedBytes -= chunk.count
            flow.parsing = true
            return .parse(chunk)
        }
        if let end = flow.end { return .end(end.map { _ in [] }) }
        return .wait
    }

    private static func mustWait(_ flow: Flow) -> Bool {
        flow.buffered.isEmpty && flow.unparsed.isEmpty && flow.end == nil
    }

    /// The iterator parsed a chunk into `result`: item handlers added since the loop began get the
    /// items, a pipeline waiting at the connection's end takes the chunks left, and a parser's
    /// error stops the request. Returns what the iterator hands out.
    private func parsedChunk(_ result: Result<[Item], NetworkError>) -> Result<[Item], NetworkError> {
        typealias Handlers = [@MainActor @Sendable (Item) -> Void]
        let (drain, producer, request, handlers) = flow.withLock { flow -> (Drain?, Producer?, AnyRequest?, Handlers) in
            flow.parsing = false
            switch result {
            case .success(let items):
                let handlers = items.isEmpty || flow.request == nil ? [] : flow.handlersTaking(items.count)
                defer { flow.drain = nil }
                return (flow.drain, nil, flow.request, handlers)
            case .failure(let error):
                // The stream ends here: what is left goes unparsed, and a waiting transport reads
                // on (to chunks it drops) until the stop reaches it.
                if flow.end == nil { flow.end = .failure(error) }
                flow.unparsed = []
                flow.unparsedBytes = 0
                defer { flow.drain = nil; flow.producer = nil }
                return (flow.drain, flow.producer, flow.request, [])
            }
        }
        producer?.resume()
        switch result {
        case .success(let items):
            // Queued before the pipeline takes the rest: the handlers run in order, before the finish's.
            if let request { queue(items, for: handlers, request: request) }
            if let drain { drain.resume(returning: flow.withLock { $0.connectionRest() } ?? .unparsed([])) }
        case .failure(let error):
            drain?.resume(returning: .ended(error))
            request?.stop(with: error)
        }
        return result
    }
}
