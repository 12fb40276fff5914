import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes the observer of each request a service starts: the `Observability` trait's spans and
/// metrics are the one kind (`Observability`). Asked in the task that starts the request
/// (`Service.start`, `Service.send`), so it reads that task's trace context, tracer and metrics
/// factory; it answers nil when there is nothing to record, and the request then pays nothing more.
protocol RequestObservation: Sendable {
    /// The observer of a request sent with `method`, or nil when nothing would be recorded.
    func observer(method: HTTPRequest.Method) -> (any RequestObserving)?
}

/// What watches one request from inside its pipeline, where an event monitor cannot: every transfer
/// (an attempt's first and each redirect it follows) is announced before it is sent,
/// with its headers still open to change, so a trace's context goes on each one, ahead of the
/// interceptors (a signer signs it) for an attempt's first. The pipeline calls these in order from
/// its own task; only the end of a WebSocket's connection comes from elsewhere (`webSocketOpened`).
protocol RequestObserving: Sendable {
    /// The request started.
    func requestDidStart()
    /// The request was built for `url`, before the cache is asked or anything is sent.
    func requestDidBuild(_ url: URL?)
    /// A transfer is about to be sent as `request`: an attempt's first, before the interceptors adapt
    /// it, or a redirect the policy follows.
    func transferWillStart(_ request: inout OutgoingRequest)
    /// The transfer announced last ended: with the response head if one arrived, and its failure, if any.
    func transferDidEnd(head: ResponseHead?, error: NetworkError?)
    /// The request starts (true) or stops (false) waiting for room where the service limits the
    /// requests in flight to `host`.
    func waitingDidChange(_ waiting: Bool, host: String)
    /// The attempt is sent, as `request` (the interceptors adapted it, so its URL may differ from
    /// the one its first transfer was announced with); its transfers follow.
    func attemptWillSend(_ request: OutgoingRequest)
    /// That attempt's last transfer ended.
    func attemptDidEnd()
    /// The attempt failed with `error` and will be tried again after `delay`.
    func requestWillRetry(after delay: Duration, error: NetworkError)
    /// The attempt failed with `error` before the server processed it and is sent again at once.
    func requestWillResend(error: NetworkError)
    /// The upgrade opened a WebSocket connection: the monitor returned hears its end, and the
    /// request's observation lasts until then.
    func webSocketOpened() -> any EventMonitor
    /// The request finished: what was measured, and for a stream the items and connections so far.
    func requestDidFinish(_ metrics: RequestMetrics, stream: (items: Int, connections: Int)?)
}
