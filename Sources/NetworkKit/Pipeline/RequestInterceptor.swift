import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way to change a request before it is sent, and to retry it: **prepare** the draft
/// (its target, parameters and headers, once per request), **adapt** the ``OutgoingRequest``
/// about to be sent (every attempt), and decide whether a failed attempt is **retried**, and when.
///
/// Yours run, in the order of ``ServiceConfiguration/interceptors`` and then a request's own
/// ``AnyRequest/interceptors``, after the service's steps that prepare every request (environment,
/// common parameters and headers, URL filters) and before its signer (see <doc:Interceptors>).
/// Every method has a default that changes nothing.
public protocol RequestInterceptor: Sendable {
    /// Changes the draft before it is encoded: its target (a path becomes a URL), parameters and
    /// headers. Runs once per request, before its first attempt, in chain order. Throwing fails
    /// the request with `NetworkError.adaptationFailed` (a thrown `NetworkError` is kept as is).
    /// Requests built from a `URLRequest` or an ``OutgoingRequest`` have no draft.
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws

    /// Returns the request to send. Throwing fails the request with
    /// `NetworkError.adaptationFailed` and nothing is sent (a thrown `NetworkError` is kept as is).
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest

    /// Decides whether the attempt that failed with `error` is tried again. The first
    /// interceptor that does not answer `.doNotRetry` decides.
    func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision
}

extension RequestInterceptor {
    /// Leaves the draft as it is.
    public func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {}

    /// Sends the request as it is.
    public func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        request
    }

    /// Never retries.
    public func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        .doNotRetry
    }
}

/// What an interceptor knows about the request it works on.
public struct InterceptorContext: Sendable {
    /// The request's identity.
    public let requestID: RequestID
    /// Which attempt this is: 1 for the first, then one more for each retry, for a download's
    /// restart from zero, and for each attempt sent again because the server did not process it.
    public let attempt: Int
    /// How many of the attempts before this one the server did not process and the kit sent
    /// again (``ServerProcessing``); a retry policy does not count them.
    public let unprocessedAttempts: Int
    /// The attempt's number as a retry policy counts it: ``attempt`` less the attempts the server
    /// did not process (1 for the first attempt the server processed).
    public var countedAttempt: Int { attempt - unprocessedAttempts }
    /// Whether the request may be sent twice without harm: its method is idempotent
    /// (GET, HEAD, PUT, DELETE, OPTIONS) or it says so (`Request/isIdempotent`).
    public let isIdempotent: Bool
    /// The response head of the failed attempt, when one arrived (for `retry`).
    public let response: ResponseHead?
    /// The service's environment when the request started (``ServiceConfiguration/environment``),
    /// the same for every attempt: where its servers are and its values (keys, client IDs).
    public let environment: ServiceEnvironment
    /// The date when the interceptor was asked, on the service's clock
    /// (``ServiceConfiguration/clock``): what a `Retry-After` date is read against.
    public let date: Date

    /// A context; the kit makes them, tests of interceptors may too.
    public init(requestID: RequestID, attempt: Int, unprocessedAttempts: Int = 0, isIdempotent: Bool,
                response: ResponseHead? = nil,
                environment: ServiceEnvironment = ServiceEnvironment(name: "default", baseURL: nil),
                date: Date = Date()) {
        self.requestID = requestID
        self.attempt = attempt
        self.unprocessedAttempts = unprocessedAttempts
        self.isIdempotent = isIdempotent
        self.response = response
        self.environment = environment
        self.date = date
    }
}

/// Whether and when to try a failed request again.
public enum RetryDecision: Sendable, Equatable {
    /// Let the failure stand.
    case doNotRetry
    /// Try again after `delay` (zero: at once). Cancelling the request during the delay cancels it.
    case retry(after: Duration)
}
