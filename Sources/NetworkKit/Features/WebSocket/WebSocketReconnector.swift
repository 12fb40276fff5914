/// A reconnecting socket's decisions as a small state machine: how a connection ended, or how an
/// upgrade failed, comes in; the wait before the next upgrade (or none: the socket ends) comes
/// back. No I/O, no clock: `WebSocketReconnectorTests` runs it as a table.
struct WebSocketReconnector {
    /// What happened to the latest connection or upgrade.
    enum Event {
        /// The open connection ended: `error` nil when the server closed it normally, and
        /// `deliveredMessages` when at least one message arrived on it.
        case connectionEnded(NetworkError?, deliveredMessages: Bool)
        /// The upgrade that would have opened the next connection failed with `error`.
        case upgradeFailed(NetworkError)
    }

    let policy: StreamReconnection
    /// Connections in a row that failed to open, or that ended before their first message.
    private(set) var failedConnects = 0

    init(policy: StreamReconnection) {
        self.policy = policy
    }

    /// The wait before the next upgrade after `event`; nil when the socket ends instead.
    mutating func next(after event: Event) -> Duration? {
        guard policy.isEnabled else { return nil }
        switch event {
        case .connectionEnded(let error, let delivered):
            if let error, !Self.reconnects(afterEnd: error) { return nil }
            if delivered {
                failedConnects = 0
                return policy.wait(serverDelay: nil, failedConnects: 0)
            }
        case .upgradeFailed(let error):
            guard case .transport(let failure) = error, failure.code != .cancelled else { return nil }
        }
        failedConnects += 1
        guard failedConnects < policy.maxFailedConnects else { return nil }
        return policy.wait(serverDelay: nil, failedConnects: failedConnects)
    }

    /// A drop, a missed keep-alive ping, a failed read and the server's close reconnect, unless
    /// the close blames the client (a protocol error, data it cannot take, a policy, a size, an
    /// extension: 1002, 1003, 1007, 1008, 1009, 1010); the client's own protocol checks, a
    /// cancel and anything else do not.
    static func reconnects(afterEnd error: NetworkError) -> Bool {
        switch error {
        case .webSocket(.dropped), .webSocket(.pingTimedOut):
            return true
        case .webSocket(.closed(let code, _)):
            return ![1002, 1003, 1007, 1008, 1009, 1010].contains(code)
        case .transport(let failure):
            return failure.code != .cancelled
        default:
            return false
        }
    }
}
