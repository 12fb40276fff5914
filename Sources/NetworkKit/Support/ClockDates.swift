import Foundation

/// Dates told by a service's clock (``ServiceConfiguration/clock``), so that what waits on the
/// clock (retry delays, reconnections) and what compares dates (a cache entry's freshness, a
/// `Retry-After` date) keep one time: the system's date on the system's clock, and on any other
/// (a test's) the date when the dates were made, moved on by what that clock measured since.
struct ClockDates: Sendable {
    /// The time the clock measured since `origin`; nil on the system's clock.
    private let elapsed: (@Sendable () -> Duration)?
    private let origin: Date

    /// Dates on `clock`, from now on.
    init(_ clock: any Clock<Duration>) {
        self.init(opened: clock)
    }

    private init<C: Clock>(opened clock: C) where C.Duration == Duration {
        origin = Date()
        if clock is ContinuousClock {
            elapsed = nil
        } else {
            let start = clock.now
            elapsed = { start.duration(to: clock.now) }
        }
    }

    /// The current date on the clock.
    var now: Date {
        guard let elapsed else { return Date() }
        let (seconds, attoseconds) = elapsed().components
        return origin.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
