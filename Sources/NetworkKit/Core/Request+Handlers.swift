import Foundation

/// The typed handlers: each wraps the caller's closure for the lifecycle, which keeps handlers
/// of every output type alike.
extension Request {
    /// Adds a handler called once, on the service's callback queue, when the request finishes.
    /// Handlers run in the order added. One added after the finish is called with the stored result.
    public func addCompletionHandler(_ handler: @escaping CompletionHandler) {
        let action = withLifecycle { lifecycle in
            lifecycle.addCompletionHandler { request, result in handler(Self.typed(request), result.typed()) }
        }
        if case .callNow(let result, let queue) = action {
            queue.async { handler(self, result.typed()) }
        }
    }

    /// Adds a handler called on the callback queue as the body uploads or downloads
    /// (coalesced to about one call per percent), never after the completion handlers.
    /// One added while the request runs reports from then on.
    public func addProgressHandler(_ handler: @escaping ProgressHandler) {
        withLifecycle { lifecycle in
            lifecycle.addProgressHandler { request, progress in handler(Self.typed(request), progress) }
        }
    }

    /// Adds a handler called on the callback queue when the request starts running and when it finishes.
    public func addStateHandler(_ handler: @escaping StateHandler) {
        withLifecycle { lifecycle in
            lifecycle.addStateHandler { request, state in handler(Self.typed(request), state) }
        }
    }

    /// Calls `observer` with the result as soon as it exists (right away if it already does).
    func observeResult(_ observer: @escaping @Sendable (Result<Output, NetworkError>) -> Void) {
        observeAnyResult { observer($0.typed()) }
    }

    /// Calls `observer` with the cached reply a cache-then-network request delivers first.
    func observeCachedReply(_ observer: @escaping @Sendable (Reply<Output>) -> Void) {
        withLifecycle { lifecycle in
            lifecycle.observeCachedReply { reply in reply.typed().map(observer) }
        }
    }

    /// The request a lifecycle handler is called with: always this class, as only it adds handlers.
    private static func typed(_ request: AnyRequest) -> Request<Output> {
        unsafeDowncast(request, to: Request<Output>.self)
    }
}
