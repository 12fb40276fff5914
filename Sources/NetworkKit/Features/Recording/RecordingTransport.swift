import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that sends through another and records each exchange in a ``HARRecorder``: the
/// request as the transport received it (after the interceptors and the signer), the response's
/// head and body, its timings, or the failure. It changes nothing of what passes: the wrapped
/// transport's events reach the kit as they came.
///
/// Each attempt and each redirect is an entry of its own; a WebSocket's upgrade is recorded as
/// its `101` (the messages are not).
public final class RecordingTransport: Transport {
    /// The transport that sends.
    public let base: any Transport
    /// Where the exchanges go.
    public let recorder: HARRecorder

    /// A transport that sends through `base` and records in `recorder`.
    public init(wrapping base: any Transport, recorder: HARRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// As the wrapped transport says.
    public var decodesContentEncoding: Bool { base.decodesContentEncoding }
    /// As the wrapped transport says.
    public var pausesReading: Bool { base.pausesReading }

    /// Sends through the wrapped transport, recording the exchange.
    public func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask {
        base.start(request, events: exchange(request, events: events))
    }

    /// Sends through the wrapped transport with `priority`, recording the exchange.
    public func start(_ request: OutgoingRequest, priority: RequestPriority, events: any TransportEvents) -> any TransportTask {
        base.start(request, priority: priority, events: exchange(request, events: events))
    }

    /// Opens the WebSocket through the wrapped transport, recording its upgrade.
    public func startWebSocket(_ request: OutgoingRequest, options: WebSocketOptions, events: any TransportEvents,
                               opened: @escaping @Sendable (any WebSocketConnection) -> Void) -> any TransportTask {
        base.startWebSocket(request, options: options, events: exchange(request, events: events), opened: opened)
    }

    /// Lets the wrapped transport finish.
    public func finishAndInvalidate() {
        base.finishAndInvalidate()
    }

    /// Shuts the wrapped transport down.
    public func shutdown() async {
        await base.shutdown()
    }

    private func exchange(_ request: OutgoingRequest, events: any TransportEvents) -> RecordedExchange {
        RecordedExchange(request: request, forward: events, recorder: recorder,
                         inflates: !base.decodesContentEncoding)
    }
}

/// One exchange under way: forwards each event, and hands the recorder its entry at the end.
final class RecordedExchange: TransportEvents {
    private struct State {
        var head: ResponseHead?
        var headAt: ContinuousClock.Instant?
        var body = Data()
        var bodyBytes = 0
        var recorded = false
    }

    private let request: OutgoingRequest
    private let forward: any TransportEvents
    private let recorder: HARRecorder
    /// Whether content-coded bodies arrive coded (the kit inflates above the transport).
    private let inflates: Bool
    private let startedAt = Date()
    private let started = ContinuousClock.now
    private let state = Protected(State())

    init(request: OutgoingRequest, forward: any TransportEvents, recorder: HARRecorder, inflates: Bool) {
        self.request = request
        self.forward = forward
        self.recorder = recorder
        self.inflates = inflates
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        forward.transportDidSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        state.withLock { state in
            state.head = head
            state.headAt = .now
            state.body.removeAll()
            state.bodyBytes = 0
        }
        forward.transportDidReceive(head: head)
    }

    func transportDidReceive(chunk: Data) {
        let limit = recorder.bodyByteLimit
        state.withLock { state in
            state.bodyBytes += chunk.count
            if state.bodyBytes <= limit { state.body.append(chunk) }
        }
        forward.transportDidReceive(chunk: chunk)
    }

    func transportReadyForMoreBody() async {
        await forward.transportReadyForMoreBody()
    }

    func transportDidComplete(failure: NetworkError?) {
        let ended = ContinuousClock.now
        let recorded = state.withLock { state -> State? in
            guard !state.recorded else { return nil }
            state.recorded = true
            return state
        }
        if let recorded {
            let builder = HAREntryBuilder(redaction: recorder.redaction, bodyLimit: recorder.bodyByteLimit)
            // A body sent from a file is read now: the kit may remove the file once the request ends.
            let requestBody = builder.requestBody(request)
            let (request, startedAt, inflates) = (request, startedAt, inflates)
            let waited = recorded.headAt.map { started.duration(to: $0) } ?? started.duration(to: ended)
            let received = recorded.headAt.map { $0.duration(to: ended) } ?? .zero
            recorder.add {
                builder.entry(request: request, requestBody: requestBody, startedAt: startedAt, waited: waited,
                              received: received, head: recorded.head, body: recorded.body,
                              bodyBytes: recorded.bodyBytes, inflates: inflates, failure: failure)
            }
        }
        forward.transportDidComplete(failure: failure)
    }
}
