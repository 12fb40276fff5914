/// A stream's reconnections as a small state machine: how each connection ended comes in, the
/// wait before the next connect (or none: the request finishes) comes back. No I/O, no clock:
/// `StreamReconnectorTests` runs it as a table.
struct StreamReconnector {
    /// How one connection of the stream ended.
    enum ConnectionEnd {
        /// The body ended as it should.
        case endOfBody
        /// The server answered 204: nothing more to stream.
        case noContent
        /// It failed with `error`; `began` when its body had begun (a drop, not a failed connect).
        case failed(NetworkError, began: Bool)
    }

    let policy: StreamReconnection
    /// Connects in a row that failed before their body began.
    private(set) var failedConnects = 0

    init(policy: StreamReconnection) {
        self.policy = policy
    }

    /// The wait before connecting again after `end`; nil when the request finishes instead.
    /// `serverDelay` is the server's last `retry:`.
    mutating func next(after end: ConnectionEnd, serverDelay: Duration?) -> Duration? {
        guard policy.isEnabled else { return nil }
        switch end {
        case .noContent:
            return nil
        case .endOfBody:
            failedConnects = 0
            return policy.wait(serverDelay: serverDelay, failedConnects: 0)
        case .failed(let error, let began):
            guard Self.reconnects(after: error) else { return nil }
            if began {
                failedConnects = 0
                return policy.wait(serverDelay: serverDelay, failedConnects: 0)
            }
            failedConnects += 1
            guard failedConnects < policy.maxFailedConnects else { return nil }
            return policy.wait(serverDelay: serverDelay, failedConnects: failedConnects)
        }
    }

    /// Connection failures (refused, dropped, timed out) reconnect; what the server or the
    /// consumer decided (a status, a parse error, a limit, a cancel) does not.
    static func reconnects(after error: NetworkError) -> Bool {
        guard case .transport(let error) = error else { return false }
        return error.code != .cancelled
    }
}
