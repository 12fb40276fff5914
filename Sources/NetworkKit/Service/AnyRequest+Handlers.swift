import Foundation

/// A typed request (`Request`, `StreamRequest`) whose handlers get the request as its own class.
protocol TypedHandlers: AnyRequest {}

/// The handlers of every typed request, written once: each wraps the caller's closure for the
/// lifecycle, which keeps handlers of every type alike and calls them with the request itself.
/// The wrapper holds the request unowned (the request holds its handlers); whoever calls a
/// handler holds the request until it returns.
extension TypedHandlers {
    /// Keeps a completion handler for the finish; one added after it is called with the stored
    /// result, queued on the main actor as every handler is.
    func addTypedCompletionHandler<Output>(_ handler: @escaping @MainActor @Sendable (Self, Result<Output, NetworkError>) -> Void) {
        let action = withStateMachine { lifecycle in
            lifecycle.addCompletionHandler { [unowned self] _, result in handler(self, result.typed()) }
        }
        if case .callNow(let result) = action {
            MainActorQueue.async { handler(self, result.typed()) }
        }
    }

    /// Keeps a progress handler while the request has not finished.
    func addTypedProgressHandler(_ handler: @escaping @MainActor @Sendable (Self, TransferProgress) -> Void) {
        withStateMachine { lifecycle in
            lifecycle.addProgressHandler { [unowned self] _, progress in handler(self, progress) }
        }
    }

    /// Keeps a state handler while the request has not finished.
    func addTypedStateHandler(_ handler: @escaping @MainActor @Sendable (Self, RequestState) -> Void) {
        withStateMachine { lifecycle in
            lifecycle.addStateHandler { [unowned self] _, state in handler(self, state) }
        }
    }
}
