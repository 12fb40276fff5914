import NetworkKit

/// A clock that moves only when a test moves it, for preview cadences without sleeping.
final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time since it started.
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let offset = Protected(Duration.zero)

    var now: Instant { Instant(offset: offset.snapshot) }
    var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves the clock on by `duration`.
    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }

    /// Never used by the parser: returns at once.
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}
