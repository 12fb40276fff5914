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
    }

    private let request: Request<Output>
    private let attempt: Int
    private let monitors: [any EventMonitor]
    private let redirects: RedirectPolicy
    /// Where the attempt was sent, to tell redirects to another origin.
    private let origin: URL?
    private let state: Protected<State>

    init(request: Request<Output>, attempt: Int, monitors: [any EventMonitor], redirects: RedirectPolicy, origin: URL?,
         continuation: CheckedContinuation<Outcome, Never>) {
        self.request = request
        self.attempt = attempt
        self.monitors = monitors
        self.redirects = redirects
        self.origin = origin
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
    }

    func transportDidReceive(chunk: Data) {
        let received = state.withLock { state -> Int in
            state.outcome.body.append(chunk)
            return state.outcome.body.count
        }
        request.didReceive(bodyBytes: received)
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
