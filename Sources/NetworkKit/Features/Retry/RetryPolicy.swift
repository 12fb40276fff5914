import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries failed requests that are safe to send again: transport failures such as a dropped
/// connection or a timeout, and chosen statuses (429 and 502/503/504 by default), with
/// exponential backoff and jitter, honouring a server's `Retry-After`.
///
/// Only idempotent requests are retried (GET, HEAD, PUT, DELETE, OPTIONS); a POST or PATCH is
/// retried only when the request opts in with `Request/isIdempotent`. Add it to a service's
/// interceptors, or to one request's:
///
/// ```swift
/// request.interceptors.append(RetryPolicy(maxRetries: 3))
/// ```
public struct RetryPolicy: RequestInterceptor {
    /// How many times a request is retried after its first attempt (0 never retries).
    public var maxRetries: Int
    /// Statuses worth another try.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another try.
    public var retryableErrorCodes: Set<URLError.Code>
    /// How long to wait before each retry when the server does not say.
    public var backoff: Backoff
    /// The longest `Retry-After` honoured; a server asking for more is not retried. A
    /// `Retry-After` date is read against the service's clock (``InterceptorContext/date``).
    public var maxRetryAfter: Duration

    /// The statuses retried by default: too many requests, bad gateway, unavailable, gateway timeout.
    public static let defaultStatusCodes: Set<Int> = [429, 502, 503, 504]
    /// The transport failures retried by default: the ones a second try can cure.
    public static let defaultErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet,
        .dnsLookupFailed, .cannotFindHost, .unknown,
    ]

    /// Creates a policy; `maxRetries` of 0 turns it off.
    public init(
        maxRetries: Int = 2,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultStatusCodes,
        retryableErrorCodes: Set<URLError.Code> = RetryPolicy.defaultErrorCodes,
        backoff: Backoff = Backoff(),
        maxRetryAfter: Duration = .seconds(120)
    ) {
        self.maxRetries = maxRetries
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableErrorCodes = retryableErrorCodes
        self.backoff = backoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// Retries while attempts remain, the request is idempotent and the failure is retryable.
    /// Attempts the server did not process (``ServerProcessing``), which the kit sent again
    /// itself, are not counted.
    public func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        let attempt = context.countedAttempt
        guard attempt <= maxRetries, context.isIdempotent else { return .doNotRetry }
        switch error {
        case .transport(let failure) where retryableErrorCodes.contains(failure.code):
            return .retry(after: backoff.delay(beforeRetry: attempt))
        case .httpStatus(let code, _, _) where retryableStatusCodes.contains(code):
            guard let asked = context.response?.headerFields[.retryAfter] else {
                return .retry(after: backoff.delay(beforeRetry: attempt))
            }
            guard let delay = Self.retryAfter(asked, now: context.date), delay <= maxRetryAfter else { return .doNotRetry }
            return .retry(after: delay)
        default:
            return .doNotRetry
        }
    }

    /// A `Retry-After` value as a delay: delta-seconds, or an HTTP date (a past date is zero).
    /// Nil when it is neither.
    public static func retryAfter(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(trimmed) { return seconds >= 0 ? .seconds(seconds) : nil }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let seconds = date.timeIntervalSince(now)
        return seconds > 0 ? .milliseconds(Int64((seconds * 1000).rounded(.up))) : .zero
    }
}

/// Exponential backoff with jitter: `initial`, then `multiplier` times the last, never above
/// `maximum`, each spread at random by ± `jitter` (a fraction) so clients do not retry in step.
public struct Backoff: Sendable {
    /// The delay before the first retry.
    public var initial: Duration
    /// What each delay is multiplied by for the next retry.
    public var multiplier: Double
    /// The longest delay.
    public var maximum: Duration
    /// How far each delay is spread at random, as a fraction of it (0.2: ± 20 %).
    public var jitter: Double

    /// Creates a backoff; the defaults wait about 0.5 s, 1 s, 2 s… up to 30 s.
    public init(initial: Duration = .milliseconds(500), multiplier: Double = 2, maximum: Duration = .seconds(30),
                jitter: Double = 0.2) {
        self.initial = initial
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = jitter
    }

    /// The delay before retry number `retry` (1 for the first).
    public func delay(beforeRetry retry: Int) -> Duration {
        var random = SystemRandomNumberGenerator()
        return delay(beforeRetry: retry, using: &random)
    }

    /// The delay before retry number `retry`, with jitter drawn from `random`.
    public func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let cap = maximum.inSeconds
        let base = min(cap, initial.inSeconds * pow(multiplier, Double(max(0, retry - 1))))
        let spread = jitter > 0 ? Double.random(in: -jitter...jitter, using: &random) : 0
        return .milliseconds(Int64((min(cap, base * (1 + spread)) * 1000).rounded()))
    }
}
