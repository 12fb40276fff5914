import Foundation

/// A streaming request's parser and consumers: items parsed from each chunk go, in order, to the
/// item handlers (queued on the callback queue while the request runs) and to the request's
/// `ItemStream`, if one iterates it. Both count against `limit`: an item counts from when it is
/// parsed until a handler block ran it or the sequence handed it out.
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
    private typealias Consumer = CheckedContinuation<Result<Item?, NetworkError>, Never>
    private typealias Producer = CheckedContinuation<Void, Never>

    /// The consumers' side.
    private struct Flow {
        var handlers: [@Sendable (AnyRequest, Item) -> Void] = []
        /// Items queued for the handlers whose block has not run yet.
        var pendingForHandlers = 0
        /// Items held for the sequence, from `head` on.
        var buffered: [Item] = []
        var head = 0
        var sequenceAttached = false
        var consumer: Consumer?
        var producer: Producer?
        var end: Result<any Sendable, NetworkError>?

        var held: Int { buffered.count - head + pendingForHandlers }
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

    func feed(_ chunk: Data, request: AnyRequest, canWait: Bool) -> NetworkError? {
        deliver(request: request, canWait: canWait) { try $0.parse(chunk) }
    }

    func endBody(request: AnyRequest, canWait: Bool) -> NetworkError? {
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
        let (consumer, producer, item) = flow.withLock { flow -> (Consumer?, Producer?, Result<Item?, NetworkError>?) in
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
    private func deliver(request: AnyRequest, canWait: Bool,
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
        let (consumer, taken) = flow.withLock { flow -> (Consumer?, Result<Item?, NetworkError>?) in
            guard flow.sequenceAttached, flow.end == nil else { return (nil, nil) }
            flow.buffered.append(contentsOf: items)
            // A waiting consumer takes the first item at once.
            guard let consumer = flow.consumer else { return (nil, nil) }
            flow.consumer = nil
            return (consumer, Self.take(from: &flow))
        }
        if let consumer, let taken { consumer.resume(returning: taken) }
        return nil
    }

    /// Queues one block that runs every handler on each item, on the callback queue, unless the
    /// request finished (nothing is reported after it finishes).
    private func queueForHandlers(_ items: [Item], request: AnyRequest) {
        let handlers = flow.withLock { flow -> [@Sendable (AnyRequest, Item) -> Void] in
            if !flow.handlers.isEmpty { flow.pendingForHandlers += items.count }
            return flow.handlers
        }
        guard !handlers.isEmpty else { return }
        let queued = request.queueWhileRunning {
            for item in items {
                for handler in handlers { handler(request, item) }
            }
            self.consumed(items.count, fromHandlers: true)
        }
        if !queued { consumed(items.count, fromHandlers: true) }
    }

    /// `count` items left the buffer: let a waiting transport read on once half the room is free.
    private func consumed(_ count: Int, fromHandlers: Bool) {
        let producer = flow.withLock { flow -> Producer? in
            if fromHandlers { flow.pendingForHandlers -= count }
            guard flow.held <= limit / 2, let producer = flow.producer else { return nil }
            flow.producer = nil
            return producer
        }
        producer?.resume()
    }

    private static func ending(_ result: Result<any Sendable, NetworkError>) -> Result<Item?, NetworkError> {
        switch result {
        case .success: .success(nil)
        case .failure(let error): .failure(error)
        }
    }

    // MARK: The consumers' side

    /// Adds an item handler; items parsed from then on reach it.
    func addHandler(_ handler: @escaping @Sendable (AnyRequest, Item) -> Void) {
        flow.withLock { $0.handlers.append(handler) }
    }

    /// An `ItemStream` iterates the request: items are held for it from now on.
    func attachSequence() {
        flow.withLock { $0.sequenceAttached = true }
    }

    /// The next item for the sequence; nil once the stream ended well, the error once it failed.
    func next() async -> Result<Item?, NetworkError> {
        if let taken = take() { return taken }
        return await withCheckedContinuation { continuation in
            let now = flow.withLock { flow -> Result<Item?, NetworkError>? in
                if let taken = Self.take(from: &flow) { return taken }
                flow.consumer = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    private func take() -> Result<Item?, NetworkError>? {
        let (taken, producer) = flow.withLock { flow -> (Result<Item?, NetworkError>?, Producer?) in
            let taken = Self.take(from: &flow)
            guard taken != nil, flow.held <= limit / 2, let producer = flow.producer else { return (taken, nil) }
            flow.producer = nil
            return (taken, producer)
        }
        producer?.resume()
        return taken
    }

    /// The next held item, or the end once none is held; nil when the consumer must wait.
    private static func take(from flow: inout Flow) -> Result<Item?, NetworkError>? {
        if flow.head < flow.buffered.count {
            let item = flow.buffered[flow.head]
            flow.head += 1
            if flow.head == flow.buffered.count {
                flow.buffered.removeAll(keepingCapacity: true)
                flow.head = 0
            } else if flow.head >= 1024, flow.head * 2 >= flow.buffered.count {
                flow.buffered.removeFirst(flow.head)
                flow.head = 0
            }
            return .success(item)
        }
        return flow.end.map(ending)
    }
}
