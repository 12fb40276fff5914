/// How far a transfer has come.
public struct TransferProgress: Sendable, Equatable {
    /// Which way the bytes go.
    public enum Direction: Sendable { case upload, download }

    /// Upload (request body) or download (response body).
    public var direction: Direction
    /// Bytes moved so far.
    public var completedBytes: Int64
    /// Bytes expected in all, when known (not known for chunked or compressed responses).
    public var totalBytes: Int64?
    /// The average rate since this attempt's first report, in bytes per second (nil at first).
    public var bytesPerSecond: Double?

    /// Creates a progress value.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?, bytesPerSecond: Double? = nil) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
    }

    /// The time left at the current rate, when the total and the rate are known.
    public var estimatedTimeRemaining: Duration? {
        guard let totalBytes, let bytesPerSecond, bytesPerSecond > 0 else { return nil }
        return .milliseconds(Int64(Double(max(0, totalBytes - completedBytes)) / bytesPerSecond * 1000))
    }

    /// From 0 to 1, or nil when the total is unknown.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(completedBytes) / Double(totalBytes))
    }
}

/// Decides which raw transport callbacks (every ~16 KB on Linux) reach the user's handlers:
/// at most one per percent of a known total, or per 256 KB of an unknown one, plus the last.
struct ProgressThrottle {
    private var lastBytes: Int64 = -1
    /// The first report's bytes and time, for the rate.
    private var origin: (bytes: Int64, time: ContinuousClock.Instant)?

    /// Whether `progress` should reach the handlers; fills in its rate when it should.
    mutating func shouldReport(_ progress: inout TransferProgress) -> Bool {
        guard passes(progress) else { return false }
        let now = ContinuousClock.now
        if let origin {
            let seconds = Double(origin.time.duration(to: now).milliseconds) / 1000
            if seconds > 0 { progress.bytesPerSecond = Double(progress.completedBytes - origin.bytes) / seconds }
        } else {
            origin = (progress.completedBytes, now)
        }
        return true
    }

    private mutating func passes(_ progress: TransferProgress) -> Bool {
        let step: Int64
        if let total = progress.totalBytes, total > 0 {
            if progress.completedBytes >= total { return record(progress) }
            step = max(1, total / 100)
        } else {
            step = 256 * 1024
        }
        guard lastBytes < 0 || progress.completedBytes - lastBytes >= step else { return false }
        return record(progress)
    }

    private mutating func record(_ progress: TransferProgress) -> Bool {
        guard progress.completedBytes != lastBytes else { return false }
        lastBytes = progress.completedBytes
        return true
    }
}
