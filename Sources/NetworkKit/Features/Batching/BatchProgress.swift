/// How many of a batch's requests have finished.
public struct BatchProgress: Sendable, Equatable, CustomStringConvertible {
    /// Requests finished so far.
    public let completed: Int
    /// Requests in the batch.
    public let total: Int

    /// Creates a progress value.
    package init(completed: Int, total: Int) {
        self.completed = completed
        self.total = total
    }

    /// From 0 to 1 (1 for an empty batch).
    public var fractionCompleted: Double {
        total > 0 ? Double(completed) / Double(total) : 1
    }

    /// `3/50`.
    public var description: String { "\(completed)/\(total)" }
}
