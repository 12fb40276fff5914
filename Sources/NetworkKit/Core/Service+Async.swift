extension Service {
    /// Sends `request` and returns its parsed value. Cancelling the calling `Task` cancels the request.
    ///
    /// The pipeline runs in the calling task (which is never the main actor: this function is
    /// not isolated to it), so no thread is woken to start it. The value arrives as soon as
    /// parsing ends; completion handlers added to the request still run on the callback queue.
    public func send<Output>(_ request: Request<Output>) async throws(NetworkError) -> Output {
        try await result(of: request).get()
    }

    /// Sends `request` and returns its value or error as a `Result`, never throwing.
    /// Cancelling the calling `Task` cancels the request.
    public func result<Output>(of request: Request<Output>) async -> Result<Output, NetworkError> {
        await withTaskCancellationHandler {
            if let pipeline = pipeline(for: request) {
                await pipeline.run()
            }
            if let result = request.result {
                return result
            }
            // Started elsewhere and still running: wait for it.
            return await withCheckedContinuation { continuation in
                request.observeResult { continuation.resume(returning: $0) }
            }
        } onCancel: {
            request.cancel()
        }
    }
}
