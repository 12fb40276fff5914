import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt's transfer: hears the transport's events for it, keeps the response head and
/// body, reports progress to the request and the head to the monitors, and hands the outcome to
/// the waiting pipeline when the transfer ends.
final class Exchange<Output: Sendable>: TransportEvents {
    /// How the transfer ended.
    struct Outcome: Sendable {
        var head: ResponseHead?
        var body = Data()
        var bytesSent: Int64 = 0
        var error: (any Error)?
    }

    private struct State {
        var outcome = Outcome()
        var continuation: CheckedContinuation<Outcome, Never>?
        /// Set once a limit stopped the transfer: later chunks are dropped.
        var stopped = false
    }

    private let request: Request<Output>
    private let attempt: Int
    private let monitors: [any EventMonitor]
    private let redirects: RedirectPolicy
    /// Where the attempt was sent, to tell redirects to another origin.
    private let origin: URL?
    /// The most body bytes to take, if there is a limit.
    private let sizeLimit: Int64?
    private let state: Protected<State>

    init(request: Request<Output>, attempt: Int, monitors: [any EventMonitor], redirects: RedirectPolicy, origin: URL?,
         sizeLimit: Int64?, continuation: CheckedContinuation<Outcome, Never>) {
        self.request = request
        self.attempt = attempt
        self.monitors = monitors
        self.redirects = redirects
        self.origin = origin
        self.sizeLimit = sizeLimit
        state = Protected(State(continuation: continuation))
    }

    func transportWillRedirect(to proposed: URLRequest, response: ResponseHead) -> URLRequest? {
        redirects.next(proposed, after: response, original: origin)
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        state.withLock { $0.outcome.bytesSent = bytes }
        request.didSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        state.withLock {
            $0.outcome.head = head
            $0.outcome.body = Data()
        }
        request.didReceive(head: head)
        for monitor in monitors { monitor.request(request.id, didReceive: head, attempt: attempt) }
        if let sizeLimit, let announced = Request<Output>.expectedLength(of: head), announced > sizeLimit {
            stopTransfer(.responseTooLarge(limit: sizeLimit))
        }
    }

    func transportDidReceive(chunk: Data) {
        let taken = state.withLock { state -> TakenChunk in
            guard !state.stopped else { return .dropped }
            if let sizeLimit, Int64(state.outcome.body.count + chunk.count) > sizeLimit { return .overLimit(sizeLimit) }
            state.outcome.body.append(chunk)
            return .bytes(state.outcome.body.count)
        }
        switch taken {
        case .bytes(let received): request.didReceive(bodyBytes: received)
        case .dropped: break
        case .overLimit(let limit): stopTransfer(.responseTooLarge(limit: limit))
        }
    }

    /// Stops the transfer for a limit: the request lands with `error`, whatever the transport
    /// reports after its cancellation.
    private func stopTransfer(_ error: NetworkError) {
        state.withLock { $0.stopped = true; $0.outcome.body = Data() }
        request.stop(with: error)
    }

    func transportDidComplete(error: (any Error)?) {
        let (outcome, continuation) = state.withLock { state in
            state.outcome.error = error
            defer { state.continuation = nil; state.outcome = Outcome() }
            return (state.outcome, state.continuation)
        }
        continuation?.resume(returning: outcome)
    }
}

/// What became of a body chunk.
private enum TakenChunk {
    /// Kept: the body is now this long.
    case bytes(Int)
    /// Dropped: the transfer was stopped already.
    case dropped
    /// Refused: it would pass this limit.
    case overLimit(Int64)
}
