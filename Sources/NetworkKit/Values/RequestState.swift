/// Where a request is in its life. It only moves forward: ready → running → finished or cancelled.
public enum RequestState: String, Sendable {
    /// Created, not sent yet.
    case ready
    /// Sent: the transport or the parser chain is working on it.
    case running
    /// Cancelled; its completion handlers got `NetworkError.cancelled`.
    case cancelled
    /// Finished with a value or an error; its completion handlers have been called.
    case finished

    /// True once the request has finished (state `finished` or `cancelled`).
    public var isTerminal: Bool { self == .finished || self == .cancelled }
}

/// A request's identity, unique in the process; `Service.cancel(id:)` takes it.
public struct RequestID: Hashable, Sendable, CustomStringConvertible {
    /// The number behind the identity.
    public let rawValue: UInt64

    private static let counter = Protected<UInt64>(0)

    static func next() -> RequestID {
        RequestID(rawValue: counter.withLock { value in value += 1; return value })
    }

    /// `#42`.
    public var description: String { "#\(rawValue)" }
}
