import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Service {
    /// Sends `request` and returns its parsed value. Cancelling the calling `Task` cancels the request.
    ///
    /// The pipeline runs in the calling task (which is never the main actor: this function is
    /// not isolated to it), so no thread is woken to start it. The value arrives as soon as
    /// parsing ends; completion handlers added to the request still run on the main actor.
    public func send<Output>(_ request: Request<Output>) async throws(NetworkError) -> Output {
        try await result(of: request).get()
    }

    /// Sends `request` and returns its value or error as a `Result`, never throwing.
    /// Cancelling the calling `Task` cancels the request.
    package func result<Output>(of request: Request<Output>) async -> Result<Output, NetworkError> {
        await anyResult(of: request).typed()
    }

    /// The pipeline's side of `result(of:)`, the same for every output type.
    func anyResult(of request: AnyRequest) async -> AnyResult {
        await withTaskCancellationHandler {
            if let pipeline = pipeline(for: request) {
                return await pipeline.run()
            }
            if let result = request.result {
                return result
            }
            // Started elsewhere and still running: wait for it.
            return await withCheckedContinuation { continuation in
                request.observeAnyResult { continuation.resume(returning: $0) }
            }
        } onCancel: {
            request.cancel()
        }
    }

    /// Sends `request` and returns its value with the response it came from: status, headers
    /// and what was measured (duration, attempts, bytes). Cancelling the calling `Task` cancels it.
    public func reply<Output>(to request: Request<Output>) async throws(NetworkError) -> Reply<Output> {
        let value = try await send(request)
        guard let head = request.responseHead, let metrics = request.metrics else {
            throw .transport(TransportError(.badServerResponse, detail: "the request finished without a response"))
        }
        return Reply(value: value, head: head, metrics: metrics, businessStatus: request.businessStatus)
    }
}

/// A request's value and the response it came from.
public struct Reply<Output: Sendable>: Sendable {
    /// The parsed value.
    public let value: Output
    /// The response head: status, headers, the URL that answered.
    public let head: ResponseHead
    /// What was measured: duration, attempts, bytes sent and received.
    public let metrics: RequestMetrics

    /// The business code and message, where the value was read through an envelope (see
    /// ``BusinessStatus``).
    public let businessStatus: BusinessStatus?

    /// The status of the answer (`head.status`).
    public var status: HTTPResponse.Status { head.status }
}
