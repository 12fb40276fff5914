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
///
/// A built-in interceptor is called for its one hook only (see `BuiltInInterceptor.prepares`):
/// a service with a base URL and nothing else costs a request one `prepare` call.
struct InterceptorChain: Sendable {
    /// Every interceptor, in order.
    let interceptors: [any RequestInterceptor]
    private let preparing: [any RequestInterceptor]
    private let adapting: [any RequestInterceptor]
    private let retrying: [any RequestInterceptor]
    /// The service steps the chain's built-in interceptors carry: a request that skips none of
    /// them (only the envelope, say, which no interceptor carries) runs this chain as it is.
    private let steps: ServiceDefaults

    /// The chain of `interceptors`, in their order.
    init(_ interceptors: [any RequestInterceptor]) {
        self.interceptors = interceptors
        preparing = interceptors.filter { Self.hook(of: $0) != .adapt }
        adapting = interceptors.filter { Self.hook(of: $0) != .prepare }
        retrying = interceptors.filter { Self.hook(of: $0) == nil }
        steps = interceptors.reduce(into: []) { steps, interceptor in
            if let builtIn = interceptor as? any BuiltInInterceptor { steps.formUnion(type(of: builtIn).serviceStep) }
        }
    }

    /// The chain of a request: this chain (the service's) with the request's own interceptors,
    /// without the built-in steps in `skipping`. A request that adds none and skips none of the
    /// chain's steps gets this chain itself, not a copy built again.
    func including(_ request: [any RequestInterceptor], usesService: Bool, skipping: ServiceDefaults = []) -> InterceptorChain {
        if request.isEmpty && usesService && skipping.isDisjoint(with: steps) { return self }
        var combined = usesService ? interceptors : interceptors.filter { $0 is any BuiltInInterceptor }
        if !skipping.isEmpty { combined.removeAll { Self.isSkipped($0, by: skipping) } }
        combined.insert(contentsOf: request, at: combined.placeForOwnInterceptor)
        return InterceptorChain(combined)
    }

    /// Whether `interceptor` carries one of the steps in `skipping`.
    private static func isSkipped(_ interceptor: any RequestInterceptor, by skipping: ServiceDefaults) -> Bool {
        guard let builtIn = interceptor as? any BuiltInInterceptor else { return false }
        return !type(of: builtIn).serviceStep.isDisjoint(with: skipping)
    }

    private enum Hook { case prepare, adapt }

    /// A built-in interceptor's one hook; nil for one of the user's (every hook).
    private static func hook(of interceptor: any RequestInterceptor) -> Hook? {
        guard let builtIn = interceptor as? any BuiltInInterceptor else { return nil }
        return type(of: builtIn).prepares ? .prepare : .adapt
    }

    /// The draft of `options` after every interceptor's `prepare`.
    func prepare(_ options: RequestOptions, context: InterceptorContext) throws(NetworkError) -> RequestDraft {
        var draft = RequestDraft(options)
        do {
            for interceptor in preparing { try interceptor.prepare(&draft, context: context) }
        } catch {
            throw Self.adaptationError(error)
        }
        return draft
    }

    /// `request` after every interceptor's `adapt`.
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws(NetworkError) -> OutgoingRequest {
        var adapted = request
        do {
            for interceptor in adapting { adapted = try await interceptor.adapt(adapted, context: context) }
        } catch {
            throw Self.adaptationError(error)
        }
        return adapted
    }

    /// The first decision that is not `.doNotRetry`.
    @inline(never)
    func retryDecision(_ request: OutgoingRequest, error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        for interceptor in retrying {
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
