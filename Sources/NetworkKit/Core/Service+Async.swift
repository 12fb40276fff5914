extension Service {
    /// Sends `request` and returns its parsed value. Cancelling the calling `Task` cancels the request.
    ///
    /// The value arrives as soon as parsing ends; completion handlers added to the request still
    /// run on the callback queue.
    public func send<Output>(_ request: Request<Output>) async throws(NetworkError) -> Output {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                request.observeResult { continuation.resume(returning: $0) }
                start(request)
            }
        } onCancel: {
            request.cancel()
        }
        return try result.get()
    }
}
