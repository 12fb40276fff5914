import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A user name and password for HTTP Basic authentication (RFC 7617).
public struct BasicCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The user name; it must not contain a colon.
    public var user: String
    /// The password.
    public var password: String

    /// Credentials of `user` and `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The value of an `Authorization` header that sends them: `Basic ` and the base64 of
    /// `user:password` in UTF-8.
    public var authorizationValue: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The user and a mask: never the password.
    public var description: String { "\(user):***" }
}

/// Sends HTTP Basic credentials: on the first attempt already (no round trip to learn that the
/// server wants them), and once more, with credentials asked for again, when the answer is a 401
/// whose `WWW-Authenticate` offers the Basic scheme. A request that already carries an
/// `Authorization` header keeps it. Per service (`ServiceConfiguration.add(_:)`) or per request
/// (`AnyRequest.interceptors`); logs and cURL output show the header redacted.
///
/// ```swift
/// configuration.add(BasicAuthentication(user: "ann", password: secret))
/// request.interceptors = [BasicAuthentication { try await keychain.credentials(for: "api") }]
/// ```
public struct BasicAuthentication: RequestInterceptor {
    private let credentials: @Sendable () async throws -> BasicCredentials

    /// Sends `user` and `password`.
    public init(user: String, password: String) {
        let fixed = BasicCredentials(user: user, password: password)
        credentials = { fixed }
    }

    /// Asks `provider` for the credentials on each attempt (a thrown error fails the request
    /// before anything is sent), so a retry after a Basic challenge sends what it gives then.
    public init(provider: @escaping @Sendable () async throws -> BasicCredentials) {
        credentials = provider
    }

    /// Adds `Authorization: Basic …` unless the request has an `Authorization` of its own.
    public func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        guard request.head.headerFields[.authorization] == nil else { return request }
        var request = request
        request.head.headerFields[.authorization] = try await credentials().authorizationValue
        return request
    }

    /// Retries at once, once, after a 401 to Basic credentials that offers the Basic scheme.
    public func retry(_ request: OutgoingRequest, dueTo error: NetworkError, context: InterceptorContext) async -> RetryDecision {
        guard case .httpStatus(401, _, _) = error, context.attempt == 1,
              request.head.headerFields[.authorization]?.hasPrefix("Basic ") == true,
              let challenge = context.response?.headerFields[.wwwAuthenticate],
              Self.offersBasic(challenge) else { return .doNotRetry }
        return .retry(after: .zero)
    }

    /// True when a `WWW-Authenticate` value offers the Basic scheme (among others, in any case).
    static func offersBasic(_ challenge: String) -> Bool {
        challenge.split(whereSeparator: { $0 == "," || $0 == " " }).contains { $0.lowercased() == "basic" }
    }
}
