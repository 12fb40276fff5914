import Foundation

/// The handlers of every typed request (`Request`, `StreamRequest`), written once: each wraps the
/// caller's closure for the lifecycle, which keeps handlers of every type alike. `Typed` is the
/// class of the request adding the handler, which is what the lifecycle calls the handler with.
extension AnyRequest {
    /// Keeps a completion handler for the finish; one added after it is called with the stored
    /// result on the callback queue.
    func addTypedCompletionHandler<Typed: AnyRequest, Output>(
        _ handler: @escaping @Sendable (Typed, Result<Output, NetworkError>) -> Void
    ) {
        let action = withStateMachine { lifecycle in
            lifecycle.addCompletionHandler { request, result in handler(unsafeDowncast(request, to: Typed.self), result.typed()) }
        }
        if case .callNow(let result, let queue) = action {
            queue.async { handler(unsafeDowncast(self, to: Typed.self), result.typed()) }
        }
    }

    /// Keeps a progress handler while the request has not finished.
    func addTypedProgressHandler<Typed: AnyRequest>(_ handler: @escaping @Sendable (Typed, TransferProgress) -> Void) {
        withStateMachine { lifecycle in
            lifecycle.addProgressHandler { request, progress in handler(unsafeDowncast(request, to: Typed.self), progress) }
        }
    }

    /// Keeps a state handler while the request has not finished.
    func addTypedStateHandler<Typed: AnyRequest>(_ handler: @escaping @Sendable (Typed, RequestState) -> Void) {
        withStateMachine { lifecycle in
            lifecycle.addStateHandler { request, state in handler(unsafeDowncast(request, to: Typed.self), state) }
        }
    }
}
