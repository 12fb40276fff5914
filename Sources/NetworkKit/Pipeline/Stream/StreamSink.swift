import Foundation

/// A streaming request's parser and consumers. Where the parser runs depends on who consumes:
///
/// - **The sequence alone** (an `ItemStream` iterates the request and no item handler was added
///   before it began): the transfer hands over the chunks as they are, and the sequence's
///   iterator parses them in its own task as it asks for items. Chunks not yet parsed count
///   against `unparsedByteLimit`.
/// - **Item handlers** (with or without the sequence): the transfer parses each chunk and queues
///   its items for the handlers on the main actor and for the sequence. An item counts
///   against `limit` from when it is parsed until a handler block ran it or the iterator took it.
///
/// Either way, the iterator takes what is held at once (one lock for many items), and a
/// transport that pauses reading stops at the bound.
///
/// At a connection's end (`endConnection`) the pipeline parses what the sequence has not taken yet
/// and the body's end, after the chunk the sequence may be parsing at that moment (never waiting
/// for the sequence to ask for more), and hands the items to it. So the pipeline reads the counts
/// and the resumption (`Last-Event-ID`, `retry:`) of the whole body, the next connection's `begin`
/// finds nothing of the last one left to parse, and the request's end never waits for its consumer.
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

    /// A sequence consumer waiting for something to take, a transport waiting for room, and the
    /// pipeline waiting for the chunk the sequence parses at a connection's end.
    typealias Consumer = CheckedContinuation<Void, Never>
    typealias Producer = CheckedContinuation<Void, Never>
    typealias Drain = CheckedContinuation<ConnectionRest, Never>

    /// What `feed` does with a chunk: parse it here, or hand it to the sequence (waking it), or
    /// refuse it.
    private enum Handed { case parseHere, handed(Consumer?), refused }
    /// What is left of a connection at its end: the transfer parses (no sequence parses), the
    /// chunks the sequence has not taken, or the stream already ended (with its error, if any).
    enum ConnectionRest { case parseHere, unparsed([Data]), ended(NetworkError?) }

    /// The consumers' side.
    struct Flow {
        var handlers: [@MainActor @Sendable (Item) -> Void] = []
        /// Items queued for the handlers whose block has not run yet.
        var pendingForHandlers = 0
        /// Items parsed by the transfer, held for the sequence.
        var buffered: [Item] = []
        /// Chunks held for the sequence to parse, when it parses.
        var unparsed: [Data] = []
        var unparsedBytes = 0
        /// True while the iterator parses a chunk it took.
        var parsing = false
        var sequenceAttached = false
        /// True when the sequence parses (it alone consumed when it was attached).
        var sequenceParses = false
        /// The request the sequence iterates, stopped when its parser throws.
        weak var request: AnyRequest?
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
        mutating func handlersTaking(_ count: Int) -> [@MainActor @Sendable (Item) -> Void] {
            if !handlers.isEmpty { pendingForHandlers += count }
            return handlers
        }

        /// The chunks not taken yet, taken.
        mutating func takeUnparsed() -> [Data] {
            defer { unparsed = []; unparsedBytes = 0 }
            return unparsed
        }

        /// What is left at a connection's end; nil while the sequence parses a chunk.
        mutating func connectionRest() -> ConnectionRest? {
            guard sequenceParses else { return .parseHere }
            if case .failure(let error) = end { return .ended(error) }
            if end != nil { return .ended(nil) }
            return parsing ? nil : .unparsed(takeUnparsed())
        }
    }

    /// The most items held for consumers; a transport that pauses reading stops at it.
    let limit: Int
    /// The most bytes held for the sequence to parse: 256 a held item.
    let unparsedByteLimit: Int
    private let parserState: Protected<ParserState>
    let flow = Protected(Flow())
    private let parserName: String

    init(parser: some StreamParser<Item>, limit: Int) {
        self.limit = max(limit, 1)
        unparsedByteLimit = self.limit * 256
        parserName = String(describing: type(of: parser))
        parserState = Protected(ParserState(parser: parser))
    }

    // MARK: The pipeline's side

    func begin(_ response: Response) throws(NetworkError) {
        assert(flow.withLock { $0.unparsed.isEmpty && !$0.parsing }, "a body began before the last one's end")
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
        let handed = flow.withLock { flow -> Handed in
            guard flow.sequenceParses else { return .parseHere }
            guard flow.end == nil else { return .handed(nil) }
            // A transport that cannot wait is refused the chunk once the sequence is a whole buffer behind.
            if !canWait, flow.unparsedBytes >= unparsedByteLimit { return .refused }
            flow.unparsed.append(chunk)
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

    func endConnection(bodyEnded: Bool, request: AnyRequest) async -> NetworkError? {
        let rest = await withCheckedContinuation { (continuation: Drain) in
            let now = flow.withLock { flow -> ConnectionRest? in
                guard let rest = flow.connectionRest() else {
                    flow.drain = continuation
                    return nil
                }
                return rest
            }
            if let now { continuation.resume(returning: now) }
        }
        switch rest {
        case .parseHere:
            return bodyEnded ? deliver(request: request, canWait: true) { try $0.finish() } : nil
        case .ended(let error):
            return error
        case .unparsed(let chunks):
            var items: [Item] = []
            var failure: NetworkError?
            do {
                for chunk in chunks { items += try parsed { try $0.parse(chunk) } }
                if bodyEnded { items += try parsed { try $0.finish() } }
            } catch {
                failure = error
            }
            handOut(items, request: request)
            return failure
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
        if case .failure(let error) = result { drain?.resume(returning: .ended(error)) } else { drain?.resume(returning: .ended(nil)) }
        consumer?.resume()
    }

    /// Parses with `parse` on the transfer's context, then hands the items out; the error that
    /// must stop the stream, if any.
    private func deliver(request: AnyRequest, canWait: Bool,
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
        handOut(items, request: request)
        return nil
    }

    /// Hands parsed items to the handlers and to the sequence, if one iterates.
    private func handOut(_ items: [Item], request: AnyRequest) {
        guard !items.isEmpty else { return }
        queueForHandlers(items, request: request)
        let consumer = flow.withLock { flow -> Consumer? in
            guard flow.sequenceAttached, flow.end == nil else { return nil }
            // Most often the iterator took everything: the items are moved in, not copied.
            if flow.buffered.isEmpty { flow.buffered = items } else { flow.buffered.append(contentsOf: items) }
            defer { flow.consumer = nil }
            return flow.consumer
        }
        consumer?.resume()
    }

    /// Runs `parse` on the parser and counts its items; a thrown error comes back in the kit's words.
    func parsed(_ parse: (inout any StreamParser<Item>) throws -> [Item]) throws(NetworkError) -> [Item] {
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

    /// Queues one block that runs every handler on each item, on the main actor, unless the
    /// request finished (nothing is reported after it finishes).
    private func queueForHandlers(_ items: [Item], request: AnyRequest) {
        queue(items, for: flow.withLock { $0.handlersTaking(items.count) }, request: request)
    }

    /// Queues the block of `queueForHandlers` for `handlers` (none: nothing to do).
    func queue(_ items: [Item], for handlers: [@MainActor @Sendable (Item) -> Void], request: AnyRequest) {
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
}
