/// Why a batch failed: which of its requests failed first, and how.
public struct BatchError: Error, Sendable, CustomStringConvertible {
    /// The position of the failed request in the batch, from 0 in the order added. For a cancelled
    /// batch, the first request that had no value yet.
    public let index: Int
    /// The failed request's identity; nil only for a batch with no requests at all.
    public let requestID: RequestID?
    /// How the request failed (`NetworkError.cancelled` when the batch was cancelled).
    public let error: NetworkError

    /// Creates a batch error; the kit makes these, tests may too.
    package init(index: Int, requestID: RequestID?, error: NetworkError) {
        self.index = index
        self.requestID = requestID
        self.error = error
    }

    init(index: Int, in parts: [AnyRequest], error: NetworkError) {
        self.init(index: index, requestID: parts.indices.contains(index) ? parts[index].id : nil, error: error)
    }

    /// `request 3 (#42) of the batch: HTTP 503 service unavailable`.
    public var description: String {
        "request \(index)" + (requestID.map { " (\($0))" } ?? "") + " of the batch: \(error)"
    }
}

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

/// Why a chain failed: at which step, and how.
public struct ChainError: Error, Sendable, CustomStringConvertible {
    /// The step that failed, from 0. For a cancelled chain, the first step without a value.
    public let step: Int
    /// The request of that step; nil when the chain was cancelled before the step was added.
    public let requestID: RequestID?
    /// How the step failed: its request's error, the error its callback threw, or
    /// `NetworkError.cancelled` when the chain was cancelled.
    public let error: NetworkError

    /// Creates a chain error; the kit makes these, tests may too.
    package init(step: Int, requestID: RequestID?, error: NetworkError) {
        self.step = step
        self.requestID = requestID
        self.error = error
    }

    /// `step 1 (#42) of the chain: HTTP 404 not found`.
    public var description: String {
        "step \(step)" + (requestID.map { " (\($0))" } ?? "") + " of the chain: \(error)"
    }
}
