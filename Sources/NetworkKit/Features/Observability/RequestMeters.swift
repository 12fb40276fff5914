#if Observability
import CoreMetrics
import Foundation

/// One request's metrics, through the metrics factory of the task that started it. Every label
/// has few values: the method, the host, the status class (`2xx`… or `none` when no response
/// arrived); never a path or a full URL.
struct RequestMeters: Sendable {
    /// The names the metrics are reported under.
    enum Label {
        /// Counter: requests finished, by `method`, `host` and `status_class`.
        static let requests = "networkkit.requests"
        /// Timer: from start to finish, by `method`, `host` and `status_class`.
        static let duration = "networkkit.request.duration"
        /// Meter: transfers under way, by `host`.
        static let inFlight = "networkkit.requests.in_flight"
        /// Meter: requests waiting for room under the service's limits on requests in flight, by `host`.
        static let waiting = "networkkit.requests.waiting"
        /// Counters: body bytes sent and received (inflated), by `host`.
        static let bytesSent = "networkkit.bytes.sent"
        static let bytesReceived = "networkkit.bytes.received"
        /// Counters: attempts retried after a failure, and sent again because the server did not
        /// process them, by `method` and `host`.
        static let retries = "networkkit.retries"
        static let resends = "networkkit.resends"
    }

    let factory: any MetricsFactory
    let method: HTTPRequest.Method

    /// The host label of `url`: its host in lower case, `none` without one.
    static func host(of url: URL?) -> String {
        url?.host?.lowercased() ?? "none"
    }

    /// One more (true) or one less (false) request waiting for room.
    func waiting(_ more: Bool, host: String) {
        Self.change(Meter(label: Label.waiting, dimensions: [("host", host)], factory: factory), up: more)
    }

    /// One more (true) or one less (false) transfer under way.
    func inFlight(_ more: Bool, host: String) {
        Self.change(Meter(label: Label.inFlight, dimensions: [("host", host)], factory: factory), up: more)
    }

    private static func change(_ meter: Meter, up: Bool) {
        if up { meter.increment() } else { meter.decrement() }
    }

    /// One more of the counter `label` (`Label.retries`, `Label.resends`), by method and host.
    func count(_ label: String, host: String) {
        Counter(label: label, dimensions: [("method", method.rawValue), ("host", host)], factory: factory).increment()
    }

    func finished(_ metrics: RequestMetrics, host: String) {
        let status = metrics.statusCode.map { "\($0 / 100)xx" } ?? "none"
        let dimensions = [("method", method.rawValue), ("host", host), ("status_class", status)]
        Counter(label: Label.requests, dimensions: dimensions, factory: factory).increment()
        CoreMetrics.Timer(label: Label.duration, dimensions: dimensions, factory: factory)
            .recordNanoseconds(metrics.duration.inNanoseconds)
        if metrics.bytesSent > 0 {
            Counter(label: Label.bytesSent, dimensions: [("host", host)], factory: factory).increment(by: metrics.bytesSent)
        }
        if metrics.bytesReceived > 0 {
            Counter(label: Label.bytesReceived, dimensions: [("host", host)], factory: factory)
                .increment(by: metrics.bytesReceived)
        }
    }
}
#endif
