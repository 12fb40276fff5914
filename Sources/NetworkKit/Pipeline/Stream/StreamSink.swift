import Foundation

/// A streaming request's parser and consumers. Where the parser runs depends on who consumes:
///
/// - **The sequence alone** (an `ItemStream` iterates the request and no item handler was added
///   before it began): the transfer hands over the chunks as they are, and the sequence's
///   iterator parses them in its own task as it asks for items. Chunks not yet parsed count
///   against `unparsedByteLimit`.
/// - **Item handlers** (with or without the sequence): the transfer parses each chunk and queues
///   its items for the handlers on the callback queue and for the sequence. An item counts
///   against `limit` from when it is parsed until a handler block ran it or the iterator took it.
///
/// Either way, the iterator takes what is held at once (one lock for many items), and a
/// transport that pauses reading stops at the bound.
///
/// A connection's end waits in `endConnection` until the sequence parsed every chunk of it, so
/// the pipeline reads the counts and the resumption (`Last-Event-ID`, `retry:`) of the whole body,
/// and the next connection's `begin` finds nothing of the last one left to parse.
///
/// `@unchecked Sendable`: `parser` is read and written only inside its `Protected` (by the
/// serialized transfer events, or by the one iterator while only it parses), `flow` only inside
/// its own; `limit` and `unparsedByteLimit` are `let`s.
final class StreamSink<Item: Sendable>: StreamSinking, @unchecked Sendable {
    private struct ParserState {
        var parser: any StreamParser<Item>
        var connections = 0
        var items = 0
    }

    /// A body's part the sequence has yet to parse.
    private enum Unparsed {
        case chunk(Data)
        /// The body ended as it should: the parser's `finish`.
        case endOfBody
    }

    /// A sequence consumer waiting for something to take, a transport waiting for room, and the
    /// pipeline waiting for a connection's last chunk to be parsed.
    private typealias Consumer = CheckedContinuation<Void, Never>
    private typealias Producer = CheckedContinuation<Void, Never>
    private typealias Drain = CheckedContinuation<NetworkError?, Never>

    /// What `feed` does with a chunk: parse it here, or hand it to the sequence (waking it), or
    /// refuse it.
    private enum Handed { case parseHere, handed(Consumer?), refused }
    /// What `endConnection` does: parse the body's end here, return now, or wait for the sequence.
    private enum ConnectionEnd { case parseHere, done(NetworkError?), wait }

    /// The consumers' side.
    private struct Flow {
        var handlers: [@Sendable (Item) -> Void] = []
        /// Items queued for the handlers whose block has not run yet.
        var pendingForHandlers = 0
        /// Items parsed by the transfer, held for the sequence.
        var buffered: [Item] = []
        /// Chunks held for the sequence to parse, when it parses.
        var unparsed: [Unparsed] = []
        var unparsedBytes = 0
        /// True while the iterator parses a part it took.
        var parsing = false
        var sequenceAttached = false
        /// True when the sequence parses (it alone consumed when it was attached).
        var sequenceParses = false
        /// The request the sequence iterates, stopped when its parser throws.
        weak var request: (any RunningRequest)?
        var consumer: Consumer?
        var producer: Producer?
        var drain: Drain?
        var end: Result<any Sendable, NetworkError>?

        var held: Int { buffered.count + pendingForHandlers }

        func isFull(limit: Int, byteLimit: Int) -> Bool {
            end == nil && (held >= limit || unparsedBytes >= byteLimit)
        }

        /// The waiting transport, taken once half the room is free again; nil otherwise.
        mutating func producerToWake(limit: Int, byteLimit: Int) -> Producer? {
            guard held <= limit / 2, unparsedBytes <= byteLimit / 2, let waiting = producer else { return nil }
            producer = nil
            return waiting
        }

        /// The item handlers, which now have `count` more items to run on.
        mutating func handlersTaking(_ count: Int) -> [@Sendable (Item) -> Void] {
            if !handlers.isEmpty { pendingForHandlers += count }
            return handlers
        }

        /// The waiting pipeline, once nothing of the connection is left to parse.
        mutating func drainToWake() -> Drain? {
            guard unparsed.isEmpty, !parsing, let waiting = drain else { return nil }
            drain = nil
            return waiting
        }
    }

    /// The most items held for consumers; a transport that pauses reading stops at it.
    let limit: Int
    /// The most bytes held for the sequence to parse: 256 a held item.
    let unparsedByteLimit: Int
    private let parserState: Protected<ParserState>
    private let flow = Protected(Flow())
    private let parserName: String

    init(parser: some StreamParser<Item>, limit: Int) {
        self.limit = max(limit, 1)
        unparsedByteLimit = self.limit * 256
        parserName = String(describing: type(of: parser))
        parserState = Protected(ParserState(parser: parser))
    }

    // MARK: The pipeline's side

    func begin(_ response: Response) throws(NetworkError) {
        assert(flow.withLock { $0.unparsed.isEmpty && !$0.parsing }, "a body began before the last one was parsed")
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
        let handed = flow.withLock { flow -> Handed in
            guard flow.sequenceParses else { return .parseHere }
            guard flow.end == nil else { return .handed(nil) }
            // A transport that cannot wait is refused the chunk once the sequence is a whole buffer behind.
            if !canWait, flow.unparsedBytes >= unparsedByteLimit { return .refused }
            flow.unparsed.append(.chunk(chunk))
            flow.unparsedBytes += chunk.count
            defer { flow.consumer = nil }
            return .handed(flow.consumer)
        }
        switch handed {
        case .parseHere:
            return deliver(request: request, canWait: canWait) { try $0.parse(chunk) }
        case .handed(let consumer):
            consumer?.resume()
            return nil
        case .refused:
            return .streamBufferFull(limit: limit)
        }
    }

    func endConnection(bodyEnded: Bool, request: any RunningRequest) async -> NetworkError? {
        let next = flow.withLock { flow -> ConnectionEnd in
            guard flow.sequenceParses else { return bodyEnded ? .parseHere : .done(nil) }
            if case .failure(let error)? = flow.end { return .done(error) }
            if flow.end != nil { return .done(nil) }
            if bodyEnded { flow.unparsed.append(.endOfBody) }
            return flow.unparsed.isEmpty && !flow.parsing ? .done(nil) : .wait
        }
        switch next {
        case .parseHere:
            return deliver(request: request, canWait: true) { try $0.finish() }
        case .done(let error):
            return error
        case .wait:
            return await withCheckedContinuation { (continuation: Drain) in
                let (now, consumer) = flow.withLock { flow -> (NetworkError??, Consumer?) in
                    if let end = flow.end {
                        guard case .failure(let error) = end else { return (.some(nil), nil) }
                        return (.some(error), nil)
                    }
                    if flow.unparsed.isEmpty, !flow.parsing { return (.some(nil), nil) }
                    flow.drain = continuation
                    defer { flow.consumer = nil }
                    return (nil, flow.consumer)
                }
                consumer?.resume()
                if let now { continuation.resume(returning: now) }
            }
        }
    }

    var hasRoom: Bool {
        flow.withLock { !$0.isFull(limit: limit, byteLimit: unparsedByteLimit) }
    }

    func waitForRoom() async {
        await withCheckedContinuation { (continuation: Producer) in
            let ready = flow.withLock { flow in
                guard flow.isFull(limit: limit, byteLimit: unparsedByteLimit) else { return true }
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
        let (consumer, producer, drain) = flow.withLock { flow -> (Consumer?, Producer?, Drain?) in
            guard flow.end == nil else { return (nil, nil, nil) }
            flow.end = result
            defer { flow.consumer = nil; flow.producer = nil; flow.drain = nil; flow.request = nil }
            return (flow.consumer, flow.producer, flow.drain)
        }
        producer?.resume()
        drain?.resume(returning: nil)
        consumer?.resume()
    }

    /// Parses with `parse` on the transfer's context, then hands the items out; the error that
    /// must stop the stream, if any.
    private func deliver(request: any RunningRequest, canWait: Bool,
                         _ parse: (inout any StreamParser<Item>) throws -> [Item]) -> NetworkError? {
        let items: [Item]
        do {
            items = try parsed(parse)
        } catch {
            return error
        }
        guard !items.isEmpty else { return nil }
        // A transport that cannot wait is refused the chunk once the consumers are a whole buffer
        // behind: they hold at most the buffer and one chunk's items.
        if !canWait, flow.withLock({ $0.held >= limit && $0.end == nil }) { return .streamBufferFull(limit: limit) }
        queueForHandlers(items, request: request)
        let consumer = flow.withLock { flow -> Consumer? in
            guard flow.sequenceAttached, flow.end == nil else { return nil }
            // Most often the iterator took everything: the items are moved in, not copied.
            if flow.buffered.isEmpty { flow.buffered = items } else { flow.buffered.append(contentsOf: items) }
            defer { flow.consumer = nil }
            return flow.consumer
        }
        consumer?.resume()
        return nil
    }

    /// Runs `parse` on the parser and counts its items; a thrown error comes back in the kit's words.
    private func parsed(_ parse: (inout any StreamParser<Item>) throws -> [Item]) throws(NetworkError) -> [Item] {
        do {
            return try parserState.withLock { state in
                let items = try parse(&state.parser)
                state.items += items.count
                return items
            }
        } catch {
            throw NetworkError.wrap(error, parser: parserName)
        }
    }

    /// Queues one block that runs every handler on each item, on the callback queue, unless the
    /// request finished (nothing is reported after it finishes).
    private func queueForHandlers(_ items: [Item], request: any RunningRequest) {
        queue(items, for: flow.withLock { $0.handlersTaking(items.count) }, request: request)
    }

    /// Queues the block of `queueForHandlers` for `handlers` (none: nothing to do).
    private func queue(_ items: [Item], for handlers: [@Sendable (Item) -> Void], request: any RunningRequest) {
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
            return flow.producerToWake(limit: limit, byteLimit: unparsedByteLimit)
        }?.resume()
    }

    // MARK: The consumers' side

    /// Adds an item handler; items parsed from then on reach it.
    func addHandler(_ handler: @escaping @Sendable (Item) -> Void) {
        flow.withLock { $0.handlers.append(handler) }
    }

    /// An `ItemStream` iterates `request`: items are held for it from now on, and when no handler
    /// was added it parses the chunks itself.
    func attachSequence(of request: any RunningRequest) {
        flow.withLock { flow in
            flow.sequenceAttached = true
            flow.sequenceParses = flow.handlers.isEmpty
            flow.request = request
        }
    }

    /// What the iterator does next.
    private enum Take {
        case items([Item])
        case parse(Unparsed)
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
            case .parse(let part):
                let result: Result<[Item], NetworkError>
                do {
                    switch part {
                    case .chunk(let chunk): result = .success(try parsed { try $0.parse(chunk) })
                    case .endOfBody: result = .success(try parsed { try $0.finish() })
                    }
                } catch {
                    result = .failure(error)
                }
                let handedOut = parsedPart(result)
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

    /// The held items, else the next part to parse, else the end; `.wait` when there is none yet.
    private static func take(from flow: inout Flow) -> Take {
        if !flow.buffered.isEmpty {
            var items: [Item] = []
            swap(&items, &flow.buffered)
            return .items(items)
        }
        if !flow.unparsed.isEmpty {
            let part = flow.unparsed.removeFirst()
            if case .chunk(let chunk) = part { flow.unparsedBytes -= chunk.count }
            flow.parsing = true
            return .parse(part)
        }
        if let end = flow.end { return .end(end.map { _ in [] }) }
        return .wait
    }

    private static func mustWait(_ flow: Flow) -> Bool {
        flow.buffered.isEmpty && flow.unparsed.isEmpty && flow.end == nil
    }

    /// The iterator parsed a part into `result`: item handlers added since the loop began get the
    /// items, the pipeline waiting for the connection's end hears of it once nothing is left, and
    /// a parser's error stops the request. Returns what the iterator hands out.
    private func parsedPart(_ result: Result<[Item], NetworkError>) -> Result<[Item], NetworkError> {
        typealias Handlers = [@Sendable (Item) -> Void]
        let (drain, producer, request, handlers) = flow.withLock { flow -> (Drain?, Producer?, (any RunningRequest)?, Handlers) in
            flow.parsing = false
            switch result {
            case .success(let items):
                let handlers = items.isEmpty || flow.request == nil ? [] : flow.handlersTaking(items.count)
                return (flow.drainToWake(), nil, flow.request, handlers)
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
            // Queued before the pipeline hears of the end: the handlers run before the finish's.
            if let request { queue(items, for: handlers, request: request) }
            drain?.resume(returning: nil)
        case .failure(let error):
            drain?.resume(returning: error)
            request?.stop(with: error)
        }
        return result
    }
}
