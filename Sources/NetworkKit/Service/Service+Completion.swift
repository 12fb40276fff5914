import Foundation

/// The handler path, awaited: what the completion handlers get, for code (tests, tools) that
/// checks what the handlers saw.
extension Service {
    /// Starts `request` as ``start(_:)-(AnyRequest)`` does (the pipeline runs on the pipeline
    /// queue) and returns the result its completion handlers get, once the main actor ran them: after every progress and state handler call, so what those recorded is complete.
    /// `result(of:)` returns as soon as parsing ends instead. A request
    /// started before is not started again; one that has finished returns its stored result.
    /// Cancelling the calling `Task` cancels the request.
    package func completion<Output>(of request: Request<Output>) async -> Result<Output, NetworkError> {
        await awaitCompletion(adding: { handler in request.addCompletionHandler { _, result in handler(result) } },
                              start: { start(request) }, cancel: { request.cancel() })
    }

    /// Starts the streaming `request` and returns what its completion handlers get, once the
    /// main actor ran them: after every item handler call. Cancelling the calling `Task`
    /// cancels the request.
    package func completion<Item>(of request: StreamRequest<Item>) async -> Result<StreamSummary, NetworkError> {
        await awaitCompletion(adding: { handler in request.addCompletionHandler { _, result in handler(result) } },
                              start: { start(request) }, cancel: { request.cancel() })
    }

    /// Starts `batch` and returns the result its completion handlers get, on the main actor
    /// after every progress handler call. Cancelling the calling `Task` cancels the batch.
    package func completion(of batch: BatchRequest) async -> Result<RequestValues, NetworkError> {
        await awaitCompletion(adding: { handler in batch.addCompletionHandler { _, result in handler(result) } },
                              start: { start(batch) }, cancel: { batch.cancel() })
    }

    /// Starts `chain` and returns the result its completion handlers get, on the main actor.
    /// Cancelling the calling `Task` cancels the chain.
    package func completion(of chain: ChainRequest) async -> Result<RequestValues, NetworkError> {
        await awaitCompletion(adding: { handler in chain.addCompletionHandler { _, result in handler(result) } },
                              start: { start(chain) }, cancel: { chain.cancel() })
    }

    /// Adds a completion handler through `addHandler`, starts through `begin`, and returns what
    /// the handler gets; `cancel` runs if the calling task is cancelled meanwhile.
    private func awaitCompletion<Outcome: Sendable>(
        adding addHandler: (@escaping @Sendable (Outcome) -> Void) -> Void,
        start begin: () -> Void,
        cancel: @escaping @Sendable () -> Void
    ) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                addHandler { continuation.resume(returning: $0) }
                begin()
            }
        } onCancel: {
            cancel()
        }
    }
}
