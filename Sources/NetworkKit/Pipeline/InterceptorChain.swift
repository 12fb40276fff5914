import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The interceptors one request runs through, in their one order: the service's list, with the
/// request's own interceptors inserted where `ServiceConfiguration.add(_:)` would put one (before
/// a signer at the end of the list), so a signature covers everything. A request with
/// `usesServiceInterceptors == false` keeps only the service's built-in steps.
///
/// Every interceptor **prepares** the draft once per request, in this order; the draft is then
/// encoded; every interceptor **adapts** each attempt, in the same order; on a failure, the first
/// that does not answer `.doNotRetry` decides the **retry**.
struct InterceptorChain: Sendable {
    let interceptors: [any RequestInterceptor]

    init(service: [any RequestInterceptor], request: [any RequestInterceptor], usesService: Bool) {
        let service = usesService ? service : service.filter { $0 is any BuiltInInterceptor }
        guard !request.isEmpty else {
            interceptors = service
            return
        }
        var interceptors = service
        interceptors.insert(contentsOf: request, at: service.placeForOwnInterceptor)
        self.interceptors = interceptors
    }

    /// The draft of `options` after every interceptor's `prepare`.
    func prepare(_ options: RequestOptions, context: InterceptorContext) throws(NetworkError) -> RequestDraft {
        var draft = RequestDraft(options)
        do {
            for interceptor in interceptors { try interceptor.prepare(&draft, context: context) }
        } catch {
            throw Self.adaptationError(error)
        }
        return draft
    }

    /// `request` after every interceptor's `adapt`.
    func adapt(_ request: URLRequest, context: InterceptorContext) async throws(NetworkError) -> URLRequest {
        var adapted = request
        do {
            for interceptor in interceptors { adapted = try await interceptor.adapt(adapted, context: context) }
        } catch {
            throw Self.adaptationError(error)
        }
        return adapted
    }

    /// The first decision that is not `.doNotRetry`.
    func retryDecision(_ request: URLRequest, error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        for interceptor in interceptors {
            let decision = await interceptor.retry(request, dueTo: error, context: context)
            if decision != .doNotRetry { return decision }
        }
        return .doNotRetry
    }

    /// A thrown `NetworkError` as is; a cancellation as `.cancelled`; anything else wrapped.
    private static func adaptationError(_ error: any Error) -> NetworkError {
        switch error {
        case let error as NetworkError: error
        case is CancellationError: .cancelled
        default: .adaptationFailed(error)
        }
    }
}
