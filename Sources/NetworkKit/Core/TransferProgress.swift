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

    /// Creates a progress value.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
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

    mutating func shouldReport(_ progress: TransferProgress) -> Bool {
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
