import Foundation
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one transfer told its events, in order, as a ``ContractCheckingTransport`` saw it.
struct TransferTrace: Sendable {
    /// One call of the events.
    enum Event: Sendable {
        case sent(bytes: Int64, total: Int64?)
        case head(ResponseHead)
        case chunk(Data)
        case completion(NetworkError?)
    }

    /// The method the transfer was sent with.
    var method: String?
    var events: [Event] = []
    /// Every break of the `TransportEvents` contract, in words.
    var violations: [String] = []

    var sends: [(bytes: Int64, total: Int64?)] {
        events.compactMap { if case .sent(let bytes, let total) = $0 { (bytes, total) } else { nil } }
    }
    var heads: [ResponseHead] {
        events.compactMap { if case .head(let head) = $0 { head } else { nil } }
    }
    var chunks: [Data] {
        events.compactMap { if case .chunk(let chunk) = $0 { chunk } else { nil } }
    }
    var body: Data {
        chunks.reduce(into: Data()) { $0.append($1) }
    }
    /// The failure of the one completion (nil on success, or before it came).
    var completionFailure: NetworkError? {
        events.lazy.compactMap { if case .completion(let failure) = $0 { failure } else { nil } }.first
    }

    /// What failed, for a completion that failed or was cancelled; nil otherwise.
    var completionCode: URLError.Code? {
        switch completionFailure {
        case .cancelled: .cancelled
        case .transport(let error): error.code
        case .connection, nil: nil
        default: nil   // a transport completes with .cancelled, .transport, .connection or .requestBodyStream only
        }
    }
}

/// A transport that sends through `base` and checks, for every transfer, that the events keep
/// the `Transport` contract: upload progress first, the head once, chunks after it, exactly one completion and nothing after it, no call overlapping
/// another; the calls are forwarded to the pipeline's events unchanged.
final class ContractCheckingTransport: Transport {
    let base: any Transport
    private let traces = Protected<[TransferRecorder]>([])

    init(_ base: any Transport) {
        self.base = base
    }

    var decodesContentEncoding: Bool {
        base.decodesContentEncoding
    }

    func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask {
        let recorder = TransferRecorder(forwardingTo: events, method: request.head.method.rawValue)
        traces.withLock { $0.append(recorder) }
        return base.start(request, events: recorder)
    }

    func finishAndInvalidate() {
        base.finishAndInvalidate()
    }

    /// The traces of every transfer started so far, each once it completed.
    func completedTraces() async -> [TransferTrace] {
        var traces: [TransferTrace] = []
        for recorder in self.traces.snapshot { traces.append(await recorder.completed()) }
        return traces
    }
}

/// Records and checks one transfer's events, forwarding each to the pipeline's.
final class TransferRecorder: TransportEvents {
    private struct State {
        var trace = TransferTrace()
        var inCall = false
        var sawHead = false
        var completed = false
        var waiting: [CheckedContinuation<TransferTrace, Never>] = []
    }

    private let forward: any TransportEvents
    private let state = Protected(State())

    init(forwardingTo forward: any TransportEvents, method: String) {
        self.forward = forward
        state.withLock { $0.trace.method = method }
    }

    /// The trace, once the transfer completed.
    func completed() async -> TransferTrace {
        await withCheckedContinuation { continuation in
            let trace = state.withLock { state -> TransferTrace? in
                if state.completed { return state.trace }
                state.waiting.append(continuation)
                return nil
            }
            if let trace { continuation.resume(returning: trace) }
        }
    }

    /// Records `event` and any contract break it makes, around the forwarded call `body`.
    private func record<T>(_ event: TransferTrace.Event, _ body: () -> T) -> T {
        state.withLock { state in
            if state.inCall { state.trace.violations.append("\(event) overlaps another call") }
            if state.completed { state.trace.violations.append("\(event) after the completion") }
            switch event {
            case .sent where state.sawHead: state.trace.violations.append("upload progress after the head")
            case .head where state.sawHead: state.trace.violations.append("a second head")
            case .chunk where !state.sawHead: state.trace.violations.append("a chunk before the head")
            default: break
            }
            if case .head = event { state.sawHead = true }
            state.trace.events.append(event)
            state.inCall = true
        }
        let result = body()
        state.withLock { $0.inCall = false }
        return result
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        record(.sent(bytes: bytes, total: total)) { forward.transportDidSend(bytes: bytes, of: total) }
    }

    func transportDidReceive(head: ResponseHead) {
        record(.head(head)) { forward.transportDidReceive(head: head) }
    }

    func transportDidReceive(chunk: Data) {
        record(.chunk(chunk)) { forward.transportDidReceive(chunk: chunk) }
    }

    func transportReadyForMoreBody() async {
        await forward.transportReadyForMoreBody()
    }

    func transportDidComplete(failure: NetworkError?) {
        record(.completion(failure)) { forward.transportDidComplete(failure: failure) }
        let (trace, waiting) = state.withLock { state in
            state.completed = true
            defer { state.waiting = [] }
            return (state.trace, state.waiting)
        }
        for continuation in waiting { continuation.resume(returning: trace) }
    }
}
