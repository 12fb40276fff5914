import Foundation

/// A streaming request's parser and consumers: items parsed from each chunk go, in order, to the
/// item handlers (queued on the callback queue while the request runs) and to the request's
/// `ItemStream`, if one iterates it. Both count against `limit`: an item counts from when it is
/// parsed until a handler block ran it or the sequence's iterator took it. The iterator takes
/// every held item at once (one lock for many items), so at most `limit` items wait here and as
/// many in the iterator's hands, plus one chunk's.
///
/// `@unchecked Sendable`: `parser` is read and written only inside its `Protected` (and only from
/// the serialized transfer events), `flow` only inside its own; `limit` is a `let`.
final class StreamSink<Item: Sendable>: StreamSinking, @unchecked Sendable {
    private struct ParserState {
        var parser: any StreamParser<Item>
        var connections = 0
        var items = 0
    }

    /// A sequence consumer waiting for its next item, and a transport waiting for room.
    private typealias Consumer = CheckedContinuation<Result<[Item], NetworkError>, Never>
    private typealias Producer = CheckedContinuation<Void, Never>

    /// The consumers' side.
    private struct Flow {
        var handlers: [@Sendable (Item) -> Void] = []
        /// Items queued for the handlers whose block has not run yet.
        var pendingForHandlers = 0
        /// Items held for the sequence.
        var buffered: [Item] = []
        var sequenceAttached = false
        var consumer: Consumer?
        var producer: Producer?
        var end: Result<any Sendable, NetworkError>?

        var held: Int { buffered.count + pendingForHandlers }

        /// The waiting transport, taken once half the room is free again; nil otherwise.
        mutating func producerToWake(limit: Int) -> Producer? {
            guard held <= limit / 2, let waiting = producer else { return nil }
            producer = nil
            return waiting
        }
    }

    /// The most items held for consumers; a transport that pauses reading stops at it.
    let limit: Int
    private let parserState: Protected<ParserState>
    private let flow = Protected(Flow())
    private let parserName: String

    init(parser: some StreamParser<Item>, limit: Int) {
        self.limit = max(limit, 1)
        parserName = String(describing: type(of: parser))
        parserState = Protected(ParserState(parser: parser))
    }

    // MARK: The pipeline's side

    func begin(_ response: Response) throws(NetworkError) {
        do {
            try parserState.withLock { state in
                state.connections += 1
                try state.parser.begin(response)
            }
        } catch {
            throw NetworkError.wrap(error, parser: parserName)
        }
    }

    func feed(_ chunk: Data, request: any RunningRequest, canWait: Bool) -> NetworkError? {
        deliver(request: request, canWait: canWait) { try $0.parse(chunk) }
    }

    func endBody(request: any RunningRequest) -> NetworkError? {
        deliver(request: request, canWait: true) { try $0.finish() }
    }

    var hasRoom: Bool {
        flow.withLock { $0.held < limit || $0.end != nil }
    }

    func waitForRoom() async {
        await withCheckedContinuation { (continuation: Producer) in
            let ready = flow.withLock { flow in
                guard flow.held >= limit, flow.end == nil else { return true }
                flow.producer = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var resumption: StreamResumption {
        parserState.withLock { $0.parser.resumption }
    }

    var counts: (items: Int, connections: Int) {
        parserState.withLock { ($0.items, $0.connections) }
    }

    func close(_ result: Result<any Sendable, NetworkError>) {
        let (consumer, producer, item) = flow.withLock { flow -> (Consumer?, Producer?, Result<[Item], NetworkError>?) in
            guard flow.end == nil else { return (nil, nil, nil) }
            flow.end = result
            defer { flow.consumer = nil; flow.producer = nil }
            // A waiting consumer holds no item: it gets the end.
            return (flow.consumer, flow.producer, Self.ending(result))
        }
        producer?.resume()
        if let consumer, let item { consumer.resume(returning: item) }
    }

    /// Parses with `parse`, then hands the items out; the error that must stop the stream, if any.
    private func deliver(request: any RunningRequest, canWait: Bool,
                         _ parse: (inout any StreamParser<Item>) throws -> [Item]) -> NetworkError? {
        let items: [Item]
        do {
            items = try parserState.withLock { state in
                let items = try parse(&state.parser)
                state.items += items.count
                return items
            }
        } catch {
            return NetworkError.wrap(error, parser: parserName)
        }
        guard !items.isEmpty else { return nil }
        // A transport that cannot wait is refused the chunk once the consumers are a whole buffer
        // behind: they hold at most the buffer and one chunk's items.
        if !canWait, flow.withLock({ $0.held >= limit && $0.end == nil }) { return .streamBufferFull(limit: limit) }
        queueForHandlers(items, request: request)
        let consumer = flow.withLock { flow -> Consumer? in
            guard flow.sequenceAttached, flow.end == nil else { return nil }
            // A waiting consumer holds nothing: it takes these items at once.
            guard let consumer = flow.consumer else {
                // Most often the iterator took everything: the items are moved in, not copied.
                if flow.buffered.isEmpty { flow.buffered = items } else { flow.buffered.append(contentsOf: items) }
                return nil
            }
            flow.consumer = nil
            return consumer
        }
        consumer?.resume(returning: .success(items))
        return nil
    }

    /// Queues one block that runs every handler on each item, on the callback queue, unless the
    /// request finished (nothing is reported after it finishes).
    private func queueForHandlers(_ items: [Item], request: any RunningRequest) {
        let handlers = flow.withLock { flow -> [@Sendable (Item) -> Void] in
            if !flow.handlers.isEmpty { flow.pendingForHandlers += items.count }
            return flow.handlers
        }
        guard !handlers.isEmpty else { return }
        let queued = request.queueWhileRunning {
            for item in items {
                for handler in handlers { handler(item) }
            }
            self.handled(items.count)
        }
        if !queued { handled(items.count) }
    }

    /// The handlers ran on `count` items: a waiting transport may read on.
    private func handled(_ count: Int) {
        flow.withLock { flow -> Producer? in
            flow.pendingForHandlers -= count
            return flow.producerToWake(limit: limit)
        }?.resume()
    }

    /// The end as the sequence hands it out: no more items, or the error.
    private static func ending(_ result: Result<any Sendable, NetworkError>) -> Result<[Item], NetworkError> {
        switch result {
        case .success: .success([])
        case .failure(let error): .failure(error)
        }
    }

    // MARK: The consumers' side

    /// Adds an item handler; items parsed from then on reach it.
    func addHandler(_ handler: @escaping @Sendable (Item) -> Void) {
        flow.withLock { $0.handlers.append(handler) }
    }

    /// An `ItemStream` iterates the request: items are held for it from now on.
    func attachSequence() {
        flow.withLock { $0.sequenceAttached = true }
    }

    /// Every item held for the sequence, in order; none once the stream ended as it should, the
    /// error once it failed. Waits while none is held and the stream goes on.
    func nextItems() async -> Result<[Item], NetworkError> {
        if let taken = take() { return taken }
        return await withCheckedContinuation { continuation in
            let now = flow.withLock { flow -> Result<[Item], NetworkError>? in
                if let taken = Self.take(from: &flow) { return taken }
                flow.consumer = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// `take(from:)` under the lock; a transport waiting for room reads on.
    private func take() -> Result<[Item], NetworkError>? {
        let (taken, producer) = flow.withLock { flow -> (Result<[Item], NetworkError>?, Producer?) in
            let taken = Self.take(from: &flow)
            return (taken, taken == nil ? nil : flow.producerToWake(limit: limit))
        }
        producer?.resume()
        return taken
    }

    /// The held items, or the end once none is held; nil when the consumer must wait.
    private static func take(from flow: inout Flow) -> Result<[Item], NetworkError>? {
        if !flow.buffered.isEmpty {
            var items: [Item] = []
            swap(&items, &flow.buffered)
            return .success(items)
        }
        return flow.end.map(ending)
    }
}
