import Foundation

/// The typed handlers (see `TypedHandlers`).
extension Request: TypedHandlers {
    /// Adds a handler called once, on the main actor, when the request finishes.
    /// Handlers run in the order added. One added after the finish is called with the stored result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        addTypedCompletionHandler(handler)
    }

    /// Adds a handler called on the main actor as the body uploads or downloads
    /// (coalesced to about one call per percent), never after the completion handlers.
    /// One added while the request runs reports from then on.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        addTypedProgressHandler(handler)
    }

    /// The request's progress as an asynchronous sequence: each value its progress handlers get,
    /// on the same schedule, ending when the request finishes (after the last progress value,
    /// before or with its completion handlers). A consumer that falls behind gets the newest
    /// value, not every one. Make the sequence before the request starts to see it all; one
    /// made while it runs reports from then on, one made after it finished is empty.
    ///
    /// ```swift
    /// let download = Request(path: "/big.zip", downloadTo: .directory(downloads))
    /// let updates = download.progressUpdates
    /// Task { for await progress in updates { bar.update(progress.fractionCompleted) } }
    /// let file = try await service.send(download)
    /// ```
    public var progressUpdates: AsyncStream<TransferProgress> {
        AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            addProgressHandler { _, progress in continuation.yield(progress) }
            addCompletionHandler { _, _ in continuation.finish() }
        }
    }

    /// Adds a handler called on the main actor when the request starts running and when it finishes.
    public func addStateHandler(_ handler: @escaping StateHandler) {
        addTypedStateHandler(handler)
    }

    /// Calls `observer` with the result as soon as it exists (right away if it already does).
    func observeResult(_ observer: @escaping @Sendable (Result<Output, NetworkError>) -> Void) {
        observeAnyResult { observer($0.typed()) }
    }

    /// Calls `observer` with the cached reply a cache-then-network request delivers first.
    func observeCachedReply(_ observer: @escaping @Sendable (Reply<Output>) -> Void) {
        withLocked { locked in
            locked.observeCachedReply { reply in reply.typed().map(observer) }
        }
    }
}
