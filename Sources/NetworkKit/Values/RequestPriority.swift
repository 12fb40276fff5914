/// How important a request is next to the service's others (YTKNetwork's `requestPriority`).
///
/// - Where the service limits the requests in flight (``ServiceConfiguration/maxRequestsInFlight``,
///   ``ServiceConfiguration/maxRequestsInFlightPerHost``), a request that has to wait goes before
///   every waiting request of lower priority; requests of the same priority go in the order they
///   began to wait.
/// - `URLSessionTransport` gives it to its task as `URLSessionTask.priority` (``urlSessionPriority``),
///   a hint the system may use to order the transfers of one connection.
public enum RequestPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Work that can wait for everything else.
    case veryLow
    /// Prefetching and other work no one waits for.
    case low
    /// The default.
    case normal
    /// What the user waits for.
    case high
    /// What the user waits for first.
    case veryHigh

    /// Orders by importance: `veryLow < low < normal < high < veryHigh`.
    public static func < (lhs: RequestPriority, rhs: RequestPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The value for `URLSessionTask.priority`: 0, 0.25, 0.5 (`URLSessionTask.defaultPriority`),
    /// 0.75 and 1.
    public var urlSessionPriority: Float {
        Float(rawValue) / 4
    }

    /// The case's name, as `nk --priority` takes it.
    public var description: String {
        switch self {
        case .veryLow: "veryLow"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .veryHigh: "veryHigh"
        }
    }

    /// The priority named `name` (the case's name, or `very-low`, `very-high`), case ignored.
    public init?(named name: String) {
        let key = name.lowercased().replacingOccurrences(of: "-", with: "")
        guard let match = Self.allCases.first(where: { $0.description.lowercased() == key }) else { return nil }
        self = match
    }
}
