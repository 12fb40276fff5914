import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hooks into every attempt of a request: **adapt** what is about to be sent (sign it, add a
/// token, rewrite the URL) and decide whether a failed attempt is **retried**, and when.
///
/// A service runs its `ServiceConfiguration/interceptors` in order, then the request's own
/// (`Request/interceptors`); a request can leave the service's out with
/// `Request/usesServiceInterceptors`. Both methods have defaults that change nothing.
public protocol RequestInterceptor: Sendable {
    /// Returns the request to send. Throwing fails the request with
    /// `NetworkError.adaptationFailed` and nothing is sent (a thrown `NetworkError` is kept as is).
    func adapt(_ request: URLRequest, context: InterceptorContext) async throws -> URLRequest

    /// Decides whether the attempt that failed with `error` is tried again. The first
    /// interceptor that does not answer `.doNotRetry` decides.
    func retry(_ request: URLRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision
}

extension RequestInterceptor {
    /// Sends the request as it is.
    public func adapt(_ request: URLRequest, context: InterceptorContext) async throws -> URLRequest {
        request
    }

    /// Never retries.
    public func retry(_ request: URLRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        .doNotRetry
    }
}

/// What an interceptor knows about the request it works on.
public struct InterceptorContext: Sendable {
    /// The request's identity.
    public let requestID: RequestID
    /// Which attempt this is: 1 for the first, 2 for the first retry…
    public let attempt: Int
    /// Whether the request may be sent twice without harm: its method is idempotent
    /// (GET, HEAD, PUT, DELETE, OPTIONS) or it says so (`Request/isIdempotent`).
    public let isIdempotent: Bool
    /// The response head of the failed attempt, when one arrived (for `retry`).
    public let response: ResponseHead?
}

/// Whether and when to try a failed request again.
public enum RetryDecision: Sendable, Equatable {
    /// Let the failure stand.
    case doNotRetry
    /// Try again after `delay` (zero: at once). Cancelling the request during the delay cancels it.
    case retry(after: Duration)
}
