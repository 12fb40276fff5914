import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs requests through swift-log (the pipeline adds it when `ServiceConfiguration/logger` is
/// set; a library never bootstraps logging, so the app's handler decides where lines go).
///
/// - `info`: one line per request when it finishes: method, URL, status, duration, bytes, attempts.
/// - `debug`: also each attempt's request headers and each response's headers, and retries.
///
/// Secrets are hidden as `ServiceConfiguration/redaction` says.
struct LoggingMonitor: EventMonitor {
    let logger: Logger
    let redaction: Redaction

    func request(_ id: RequestID, didSend request: URLRequest, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        let lines = redaction.headerLines(request.allHTTPHeaderFields ?? [:]).map { "> " + $0 }
        let line = "\(id) > \(request.httpMethod ?? "GET") \(redaction.url(request.url)) (attempt \(attempt))\n"
            + lines.joined(separator: "\n")
        logger.debug("\(line)")
    }

    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        let lines = redaction.headerLines(head.headers).map { "< " + $0 }
        let version = head.httpVersion.map { " (\($0))" } ?? ""
        let line = "\(id) < \(head.statusCode)\(version)\n" + lines.joined(separator: "\n")
        logger.debug("\(line)")
    }

    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {
        logger.debug("\(id) attempt \(attempt) was not processed by the server (\(error)); sending it again")
    }

    func request(_ id: RequestID, willRetryAfter delay: Duration, attempt: Int, error: NetworkError) {
        logger.debug("\(id) attempt \(attempt) failed (\(error)); retrying in \(delay.milliseconds) ms")
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        let status = metrics.statusCode.map(String.init) ?? "-"
        let outcome = metrics.error.map { "failed: \($0)" } ?? "ok"
        var notes = metrics.attempts > 1 ? ", \(metrics.attempts) attempts" : ""
        if metrics.cache != .notUsed { notes += ", cache \(metrics.cache)" }
        let level: Logger.Level = metrics.error == nil || metrics.error?.isCancellation == true ? .info : .warning
        let line = "\(metrics.id) \(metrics.method.rawValue) \(redaction.url(metrics.url)) \(status) "
            + "in \(metrics.duration.milliseconds) ms, \(metrics.bytesSent) B up, \(metrics.bytesReceived) B down\(notes): \(outcome)"
        logger.log(level: level, "\(line)")
    }
}

extension Duration {
    /// Whole milliseconds, for log lines.
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
