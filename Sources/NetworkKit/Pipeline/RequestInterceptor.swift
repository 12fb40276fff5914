import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way to change a request before it is sent, and to retry it: **prepare** the draft
/// (its target, parameters and headers, once per request), **adapt** the ``OutgoingRequest``
/// about to be sent (every attempt), and decide whether a failed attempt is **retried**, and when.
///
/// Yours run, in the order of ``ServiceConfiguration/interceptors`` and then a request's own
/// ``AnyRequest/interceptors``, after the service's built-in interceptors that prepare every request (environment,
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

/// The interceptors one request runs through, in their one order: the service's list, with the
/// request's own interceptors inserted where `ServiceConfiguration.add(_:)` would put one (before
/// a signer at the end of the list), so a signature covers everything. A request with
/// `usesServiceInterceptors == false` keeps only the service's built-in interceptors.
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
    /// The service defaults the chain's built-in interceptors carry: a request that skips none of
    /// them (only the envelope, say, which no interceptor carries) runs this chain as it is.
    private let defaults: ServiceDefaults

    /// The chain of `interceptors`, in their order.
    init(_ interceptors: [any RequestInterceptor]) {
        self.interceptors = interceptors
        preparing = interceptors.filter { Self.hook(of: $0) != .adapt }
        adapting = interceptors.filter { Self.hook(of: $0) != .prepare }
        retrying = interceptors.filter { Self.hook(of: $0) == nil }
        defaults = interceptors.reduce(into: []) { defaults, interceptor in
            if let builtIn = interceptor as? any BuiltInInterceptor { defaults.formUnion(type(of: builtIn).serviceDefault) }
        }
    }

    /// The chain of a request: this chain (the service's) with the request's own interceptors,
    /// without the built-in interceptors that carry a default in `skipping`. A request that adds none
    /// and skips none of the chain's defaults gets this chain itself, not a copy built again.
    func including(_ request: [any RequestInterceptor], usesService: Bool, skipping: ServiceDefaults = []) -> InterceptorChain {
        if request.isEmpty && usesService && skipping.isDisjoint(with: defaults) { return self }
        var combined = usesService ? interceptors : interceptors.filter { $0 is any BuiltInInterceptor }
        if !skipping.isEmpty { combined.removeAll { Self.isSkipped($0, by: skipping) } }
        combined.insert(contentsOf: request, at: combined.placeForOwnInterceptor)
        return InterceptorChain(combined)
    }

    /// Whether `interceptor` carries one of the defaults in `skipping`.
    private static func isSkipped(_ interceptor: any RequestInterceptor, by skipping: ServiceDefaults) -> Bool {
        guard let builtIn = interceptor as? any BuiltInInterceptor else { return false }
        return !type(of: builtIn).serviceDefault.isDisjoint(with: skipping)
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

/// Where a built-in interceptor goes in a list that does not hold one yet.
enum BuiltInPlace: Sendable {
    /// Before the first of the user's interceptors, after the leading built-ins of a lower rank.
    case leading(rank: Int)
    /// At the end of the list.
    case last
}

/// An interceptor the kit's conveniences create (`ServiceConfiguration.baseURL`, `signer`,
/// `AnyRequest.parameterRules`…). Each kind appears at most once in a list: a convenience
/// replaces it where it stands, or inserts it at its ``BuiltInPlace``.
protocol BuiltInInterceptor: RequestInterceptor {
    /// Where a convenience inserts this kind of interceptor.
    static var place: BuiltInPlace { get }
    /// Whether it implements `prepare` (true) or `adapt` (false); none of them retries. The
    /// chain calls a built-in interceptor's one hook only.
    static var prepares: Bool { get }
    /// The service default a request leaves this interceptor out with
    /// (``AnyRequest/skippedServiceDefaults``); empty when a request cannot leave it out.
    static var serviceDefault: ServiceDefaults { get }
}

extension BuiltInInterceptor {
    static var serviceDefault: ServiceDefaults { [] }
}

extension Array where Element == any RequestInterceptor {
    /// The list's interceptor of kind `kind`, if it has one.
    func builtIn<Kind: BuiltInInterceptor>(_ kind: Kind.Type) -> Kind? {
        for interceptor in self {
            if let match = interceptor as? Kind { return match }
        }
        return nil
    }

    /// Puts `interceptor` in place of the list's interceptor of its kind, or, when the list has
    /// none, at the kind's place; nil removes the list's one.
    mutating func setBuiltIn<Kind: BuiltInInterceptor>(_ interceptor: Kind?, kind: Kind.Type = Kind.self) {
        if let index = firstIndex(where: { $0 is Kind }) {
            if let interceptor { self[index] = interceptor } else { remove(at: index) }
            return
        }
        guard let interceptor else { return }
        switch Kind.place {
        case .last:
            append(interceptor)
        case .leading(let rank):
            let index = firstIndex { element in
                guard let builtIn = element as? any BuiltInInterceptor,
                      case .leading(let other) = type(of: builtIn).place else { return true }
                return other > rank
            } ?? endIndex
            insert(interceptor, at: index)
        }
    }

    /// Where an interceptor of the user's goes by default: before the built-ins that go last
    /// (the signer) at the end of the list.
    var placeForOwnInterceptor: Int {
        var index = endIndex
        while index > startIndex, let builtIn = self[index - 1] as? any BuiltInInterceptor,
              case .last = type(of: builtIn).place {
            index -= 1
        }
        return index
    }

    /// The user's interceptors of the list, in order: every one but the built-in ones.
    var ownInterceptors: [any RequestInterceptor] {
        filter { !($0 is any BuiltInInterceptor) }
    }

    /// Puts `own` in place of the list's own interceptors, between the built-in ones that lead
    /// and those that go last, which stay as they are.
    mutating func replaceOwnInterceptors(with own: [any RequestInterceptor]) {
        removeAll { !($0 is any BuiltInInterceptor) }
        insert(contentsOf: own, at: placeForOwnInterceptor)
    }
}

/// What a service applies to every request that a request can leave out, each on its own
/// (``AnyRequest/skippedServiceDefaults``): common headers and parameters, the signer, the
/// envelope, the response validation. The rest of the service's setup still applies.
public struct ServiceDefaults: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int

    /// A set of defaults from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// ``ServiceConfiguration/commonHeaderFields``.
    public static let commonHeaderFields = ServiceDefaults(rawValue: 1 << 0)
    /// ``ServiceConfiguration/commonParameters``.
    public static let commonParameters = ServiceDefaults(rawValue: 1 << 1)
    /// ``ServiceConfiguration/signer``.
    public static let signer = ServiceDefaults(rawValue: 1 << 2)
    /// ``ServiceConfiguration/envelope``: the request's parser reads the body as it is.
    public static let envelope = ServiceDefaults(rawValue: 1 << 3)
    /// ``ServiceConfiguration/responseValidation``: the request's answers are checked by its own
    /// acceptable status codes and its parser alone.
    public static let responseValidation = ServiceDefaults(rawValue: 1 << 4)
}
