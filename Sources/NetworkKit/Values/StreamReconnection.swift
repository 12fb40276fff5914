/// When a stream connects again after its body ended or dropped, as EventSource does.
///
/// After a body that ended as it should, the next connection waits the server's last `retry:`
/// time (else ``delay``). After a connection that failed or dropped, the wait grows by
/// ``backoffMultiplier`` for each connect in a row that failed, up to ``maxDelay``; after
/// ``maxFailedConnects`` such failures in a row the request fails with the last error. Each
/// connection is a new attempt: the interceptors adapt it again (a fresh token, a new
/// signature), and it sends `Last-Event-ID` when the stream has one.
///
/// A WebSocket reconnects by the same policy (``WebSocketOptions/reconnection``), without
/// `retry:` or `Last-Event-ID`.
///
/// A stream stops for good, whatever this says, on a `204 No Content`, on a status the request
/// does not accept, on a parse error (a `Content-Type` that is not the stream's), on a limit, and
/// when cancelled.
public struct StreamReconnection: Sendable, Equatable {
    /// Whether the stream connects again at all.
    public var isEnabled: Bool
    /// The wait before connecting again when the server asked for none (`retry:`).
    public var delay: Duration
    /// The longest wait between two connects.
    public var maxDelay: Duration
    /// How much longer each wait is than the one before while connects keep failing.
    public var backoffMultiplier: Double
    /// How many connects in a row may fail (no accepted answer, or a drop before the body began)
    /// before the request fails.
    public var maxFailedConnects: Int

    /// Creates a policy; the defaults reconnect after 3 s, doubling up to 30 s, giving up after
    /// 5 failed connects in a row.
    public init(isEnabled: Bool = true, delay: Duration = .seconds(3), maxDelay: Duration = .seconds(30),
                backoffMultiplier: Double = 2, maxFailedConnects: Int = 5) {
        self.isEnabled = isEnabled
        self.delay = delay
        self.maxDelay = maxDelay
        self.backoffMultiplier = backoffMultiplier
        self.maxFailedConnects = maxFailedConnects
    }

    /// No reconnection: the stream ends with its first body (the default for streams that are
    /// not event streams).
    public static let never = StreamReconnection(isEnabled: false)

    /// EventSource's behaviour (the default for event streams).
    public static let eventSource = StreamReconnection()

    /// The wait before the next connect: `serverDelay` (else `delay`) after `failedConnects`
    /// failures in a row, grown by the backoff and capped.
    func wait(serverDelay: Duration?, failedConnects: Int) -> Duration {
        let base = serverDelay ?? delay
        guard failedConnects > 0 else { return min(base, maxDelay) }
        var wait = base
        for _ in 0..<min(failedConnects, 64) {
            wait = wait * max(backoffMultiplier, 1)
            if wait >= maxDelay { return maxDelay }
        }
        return wait
    }
}
