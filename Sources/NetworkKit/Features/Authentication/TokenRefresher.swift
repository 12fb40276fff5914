import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a bearer token with every request, and when the server says it has expired — a 401,
/// or any failure `isExpired` recognises, such as a "token expired" business code — refreshes
/// it once and retries. Requests that fail while a refresh is under way wait for that same
/// refresh instead of starting their own.
///
/// ```swift
/// let tokens = TokenRefresher(token: savedToken) { try await auth.refresh() }
/// configuration.interceptors.append(tokens)
/// ```
public struct TokenRefresher: RequestInterceptor {
    private let store: TokenStore
    private let isExpired: @Sendable (NetworkError) -> Bool
    /// The field the token goes in, and what precedes it there.
    private let header: HTTPField.Name
    private let scheme: String

    /// Creates the interceptor.
    /// - Parameters:
    ///   - token: the token to start with; nil refreshes before the first request.
    ///   - header: where the token goes (`Authorization` by default).
    ///   - scheme: what precedes the token in the header (`Bearer ` by default).
    ///   - isExpired: which failures mean the token has expired (by default a 401).
    ///   - refresh: fetches a new token; a thrown error lets the failure stand.
    public init(
        token: String?,
        header: HTTPField.Name = .authorization,
        scheme: String = "Bearer ",
        isExpired: @escaping @Sendable (NetworkError) -> Bool = { if case .httpStatus(401, _, _) = $0 { true } else { false } },
        refresh: @escaping @Sendable () async throws -> String
    ) {
        store = TokenStore(token: token, refresh: refresh)
        self.isExpired = isExpired
        self.header = header
        self.scheme = scheme
    }

    /// The token in use now.
    public var token: String? {
        get async { await store.token }
    }

    /// Adds the current token (refreshing first when there is none).
    public func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[header] = scheme + (try await store.current())
        return request
    }

    /// After an expired-token failure, refreshes (once for all requests that failed with the
    /// same token) and retries at once; a request is retried for this at most once.
    public func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        guard isExpired(error), context.attempt == 1 else { return .doNotRetry }
        let used = request.head.headerFields[header].map { String($0.dropFirst(scheme.count)) }
        do {
            _ = try await store.refresh(replacing: used)
            return .retry(after: .zero)
        } catch {
            return .doNotRetry
        }
    }
}

/// The token and the one refresh that may be under way.
actor TokenStore {
    private(set) var token: String?
    private var refreshing: Task<String, any Error>?
    private let refresh: @Sendable () async throws -> String

    init(token: String?, refresh: @escaping @Sendable () async throws -> String) {
        self.token = token
        self.refresh = refresh
    }

    /// The token, waiting for a refresh under way, or starting one when there is no token.
    func current() async throws -> String {
        if let refreshing { return try await refreshing.value }
        if let token { return token }
        return try await refresh(replacing: nil)
    }

    /// A fresh token for a request that failed with `used`: a new one when another request
    /// refreshed meanwhile, else the result of the refresh under way, else of a new refresh.
    func refresh(replacing used: String?) async throws -> String {
        if let refreshing { return try await refreshing.value }
        if let token, token != used { return token }
        let task = Task { try await refresh() }
        refreshing = task
        defer { refreshing = nil }
        let fresh = try await task.value
        token = fresh
        return fresh
    }
}
