import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs requests through swift-log (the pipeline adds it when `ServiceConfiguration/logger` is
/// set; a library never bootstraps logging, so the app's handler decides where lines go).
///
/// - `info`: one line per request when it finishes: method, URL, status, duration, bytes, attempts.
/// - `debug`: also each attempt's request headers and each response's headers, each redirect
///   followed, and retries.
/// - WebSockets: at `info`, one line when a connection ends (how, messages and bytes each way);
///   at `debug`, each message's kind and size. A message's content is never logged.
///
/// Secrets are hidden as `ServiceConfiguration/redaction` says.
struct LoggingMonitor: EventMonitor {
    let logger: Logger
    let redaction: Redaction

    func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        let lines = redaction.headerLines(request.head.headerFields).map { "> " + $0 }
        let line = "\(id) > \(request.head.method.rawValue) \(redaction.url(request.url)) (attempt \(attempt))\n"
            + lines.joined(separator: "\n")
        logger.debug("\(line)")
    }

    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        let lines = redaction.headerLines(head.headerFields).map { "< " + $0 }
        let version = head.httpVersion.map { " (\($0))" } ?? ""
        let line = "\(id) < \(head.status.code)\(version)\n" + lines.joined(separator: "\n")
        logger.debug("\(line)")
    }

    func request(_ id: RequestID, willFollowRedirect head: ResponseHead, to request: OutgoingRequest, attempt: Int) {
        logger.debug("\(id) < \(head.status.code): following the redirect to \(redaction.url(request.url))")
    }

    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {
        logger.debug("\(id) attempt \(attempt) was not processed by the server (\(error)); sending it again")
    }

    func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError) {
        logger.debug("\(id) attempt \(attempt) failed (\(error)); retrying in \(delay.milliseconds) ms")
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        let status = metrics.statusCode.map(String.init) ?? "-"
        let ending = metrics.error.map { "failed: \($0)" } ?? "ok"
        var notes = metrics.attempts > 1 ? ", \(metrics.attempts) attempts" : ""
        if metrics.cache != .notUsed { notes += ", cache \(metrics.cache)" }
        let level: Logger.Level = metrics.error == nil || metrics.error?.isCancellation == true ? .info : .warning
        let line = "\(metrics.id) \(metrics.method.rawValue) \(redaction.url(metrics.url)) \(status) "
            + "in \(metrics.duration.milliseconds) ms, \(metrics.bytesSent) B up, \(metrics.bytesReceived) B down\(notes): \(ending)"
        logger.log(level: level, "\(line)")
    }
}

extension LoggingMonitor {
    func webSocket(_ id: RequestID, didSend message: WebSocketMessage) {
        logger.debug("\(id) WebSocket > \(Self.kind(of: message)), \(message.byteCount) B")
    }

    func webSocket(_ id: RequestID, didReceive message: WebSocketMessage) {
        logger.debug("\(id) WebSocket < \(Self.kind(of: message)), \(message.byteCount) B")
    }

    func webSocket(_ id: RequestID, didCloseWith summary: WebSocketSummary) {
        let how = summary.appCloseCode.map { "closed by the app with \($0)" } ?? "closed by the server"
        let ending = summary.error.map { "failed: \($0)" } ?? how
        let line = "\(id) WebSocket ended after \(summary.duration.milliseconds) ms, "
            + "\(summary.messagesSent) messages (\(summary.bytesSent) B) sent, "
            + "\(summary.messagesReceived) (\(summary.bytesReceived) B) received: \(ending)"
        logger.log(level: summary.error == nil ? .info : .warning, "\(line)")
    }

    private static func kind(of message: WebSocketMessage) -> String {
        switch message {
        case .text: "text"
        case .binary: "binary"
        }
    }
}

extension Duration {
    /// Whole milliseconds, for log lines.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
