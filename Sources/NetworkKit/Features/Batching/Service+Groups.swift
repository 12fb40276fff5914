extension Service {
    /// Starts every request of `batch` on this service. The batch's handlers run on the main actor
    /// when it finishes. Starting a batch that was started before does nothing; one cancelled
    /// before start finishes cancelled.
    public func start(_ batch: BatchRequest) {
        batch.begin(on: self)
    }

    /// Sends `batch` and returns its requests' values in the order added (read them typed with
    /// `values[request]`). Throws the first failure, naming the request
    /// (``NetworkError/batchFailed(index:requestID:error:)``). Cancelling the calling
    /// `Task` cancels the batch and its requests.
    public func send(_ batch: BatchRequest) async throws(NetworkError) -> RequestValues {
        try await result(of: batch).get()
    }

    /// Sends `batch` and returns its values or its failure as a `Result`, never throwing.
    /// Cancelling the calling `Task` cancels the batch.
    package func result(of batch: BatchRequest) async -> Result<RequestValues, NetworkError> {
        await awaitResult(of: batch)
    }

    /// Starts `chain` on this service: its first step, then each next one as the one before
    /// succeeds. Starting a chain that was started before does nothing; one cancelled before
    /// start finishes cancelled.
    public func start(_ chain: ChainRequest) {
        chain.begin(on: self)
    }

    /// Sends `chain` and returns every step's value in step order. Throws the failure of the
    /// step that failed (``NetworkError/chainFailed(step:requestID:error:)``). Cancelling the calling `Task` cancels the chain and its running step.
    public func send(_ chain: ChainRequest) async throws(NetworkError) -> RequestValues {
        try await result(of: chain).get()
    }

    /// Sends `chain` and returns its values or its failure as a `Result`, never throwing.
    /// Cancelling the calling `Task` cancels the chain.
    package func result(of chain: ChainRequest) async -> Result<RequestValues, NetworkError> {
        await awaitResult(of: chain)
    }
}
