import FixtureServer
import Foundation

/// How much a piece of work raises the process's peak resident memory, for the memory checks.
///
/// Other tests run in the same process at the same time and their allocations show in the
/// process-wide peak too; they can only add to it. So the work runs `tries` times and the least
/// growth is the figure: a bound that fails then failed every time.
enum PeakMemory {
    /// Whether figures mean anything here: not under a sanitizer (`scripts/sanitize` sets
    /// `NK_SANITIZER`), whose shadow memory and quarantine count as resident, nor where the peak
    /// cannot be reset.
    static var isMeasurable: Bool {
        ProcessInfo.processInfo.environment["NK_SANITIZER"] == nil && ResidentMemory.resetPeak()
    }

    /// The least peak growth over `tries` runs of `work`, and the result of the last run;
    /// the growth is nil when memory is not measurable (see `isMeasurable`).
    static func growth<T>(tries: Int = 3, _ work: () throws -> T) rethrows -> (result: T, growth: Int?) {
        guard isMeasurable else { return (try work(), nil) }
        var (result, least) = try measuredOnce(work)
        for _ in 1..<max(1, tries) where least >= 16 << 20 {
            let (again, growth) = try measuredOnce(work)
            result = again
            least = min(least, growth)
        }
        return (result, least)
    }

    private static func measuredOnce<T>(_ work: () throws -> T) rethrows -> (T, Int) {
        ResidentMemory.resetPeak()
        let before = ResidentMemory.current ?? 0
        let result = try work()
        return (result, (ResidentMemory.peak ?? 0) - before)
    }
}
