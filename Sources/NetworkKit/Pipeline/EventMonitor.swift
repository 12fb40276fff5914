import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches what happens to every request of a service: logging, metrics, tracing. Every method
/// has a default that does nothing, so a monitor implements only what it needs. A service can
/// have several (`ServiceConfiguration/eventMonitors`); they are called in order, on the
/// request's pipeline (never the main actor), so they should be quick.
public protocol EventMonitor: Sendable {
    /// The service took the request on (`Service/start(_:)`).
    func requestDidStart(_ id: RequestID, target: String, method: HTTPRequest.Method)
    /// Interceptors adapted the request for `attempt`; this is what will be sent.
    func request(_ id: RequestID, didAdapt request: OutgoingRequest, attempt: Int)
    /// The transport started sending attempt `attempt`.
    func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int)
    /// The response head arrived.
    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int)
    /// Attempt `attempt` got `head`, a redirect the ``RedirectPolicy`` follows: `request` is sent
    /// next, as a new transfer of the same attempt (the monitors hear no `didReceive` for `head`,
    /// which is not the request's answer).
    func request(_ id: RequestID, willFollowRedirect head: ResponseHead, to request: OutgoingRequest, attempt: Int)
    /// Attempt `attempt` failed with `error` and will be tried again after `delay`.
    func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError)
    /// Attempt `attempt` failed with `error` before the server processed it (``ServerProcessing``:
    /// a `GOAWAY`, a `REFUSED_STREAM`, a keep-alive connection closed under it): it is sent again
    /// at once as attempt `attempt + 1`, and its retry policy does not count it.
    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError)
    /// The parser chain ran on the body, in `duration`.
    func request(_ id: RequestID, didParseIn duration: Duration, succeeded: Bool)
    /// The request finished: everything measured about it.
    func requestDidFinish(_ metrics: RequestMetrics)
    /// The app sent `message` on the WebSocket that request `id` opened. The kit's own log
    /// writes its kind and size, never its content.
    func webSocket(_ id: RequestID, didSend message: WebSocketMessage)
    /// The app read `message` from the WebSocket that request `id` opened.
    func webSocket(_ id: RequestID, didReceive message: WebSocketMessage)
    /// The WebSocket that request `id` opened ended (once, however it ended): what crossed it,
    /// and how. A socket that reconnects opens each new connection by a request of its own.
    func webSocket(_ id: RequestID, didCloseWith summary: WebSocketSummary)
}

extension EventMonitor {
    /// Does nothing.
    public func requestDidStart(_ id: RequestID, target: String, method: HTTPRequest.Method) {}
    /// Does nothing.
    public func request(_ id: RequestID, didAdapt request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, willFollowRedirect head: ResponseHead, to request: OutgoingRequest, attempt: Int) {}
    /// Does nothing.
    public func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError) {}
    /// Does nothing.
    public func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {}
    /// Does nothing.
    public func request(_ id: RequestID, didParseIn duration: Duration, succeeded: Bool) {}
    /// Does nothing.
    public func requestDidFinish(_ metrics: RequestMetrics) {}
    /// Does nothing.
    public func webSocket(_ id: RequestID, didSend message: WebSocketMessage) {}
    /// Does nothing.
    public func webSocket(_ id: RequestID, didReceive message: WebSocketMessage) {}
    /// Does nothing.
    public func webSocket(_ id: RequestID, didCloseWith summary: WebSocketSummary) {}
}
