import Foundation

/// A named pair of servers — AIFNetworking's online and offline environments, or production,
/// staging and a developer's machine — that a service can switch between at runtime.
///
/// ```swift
/// var configuration = ServiceConfiguration(environments: [
///     ServiceEnvironment(name: "production", baseURL: URL(string: "https://api.example.com")),
///     ServiceEnvironment(name: "staging", baseURL: URL(string: "https://staging.example.com")),
/// ])
/// let api = Service(configuration: configuration)   // on the first: production
/// api.useEnvironment(named: "staging")              // requests in flight finish where they went
/// ```
///
/// An environment also carries the values that go with its servers (RTNetworking's keys for
/// online and offline): signing keys, client IDs. The signer and the interceptors read them
/// from the environment that was active when the request started
/// (``InterceptorContext/environment``), so a request keeps its keys through its retries even
/// if the service switches environment meanwhile:
///
/// ```swift
/// ServiceEnvironment(name: "staging", baseURL: staging, values: ["signingKey": stagingKey, "clientID": "web-staging"])
///
/// func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
///     var adapted = request
///     adapted.head.headerFields[HTTPField.Name("X-Client-ID")!] = context.environment["clientID"]
///     return adapted
/// }
/// ```
public struct ServiceEnvironment: Sendable, Hashable {
    /// The name the environment is switched to by.
    public var name: String
    /// Where paths are resolved.
    public var baseURL: URL?
    /// Where paths of requests with `useCDN` are resolved.
    public var cdnURL: URL?
    /// The values that belong to this environment, such as its signing key and client ID.
    public var values: [String: String]

    /// Creates an environment.
    public init(name: String, baseURL: URL?, cdnURL: URL? = nil, values: [String: String] = [:]) {
        self.name = name
        self.baseURL = baseURL
        self.cdnURL = cdnURL
        self.values = values
    }

    /// The value for `key` in this environment, nil when it has none.
    public subscript(key: String) -> String? {
        get { values[key] }
        set { values[key] = newValue }
    }
}

extension ServiceEnvironment {
    /// The URL `path` names on the base URL (or, with `useCDN`, the CDN URL).
    /// - Throws: `NetworkError.invalidURL` when the environment has no such URL, or the path
    ///   does not make a URL on it.
    package func resolve(_ path: String, useCDN: Bool) throws(NetworkError) -> URL {
        let base = useCDN ? cdnURL : baseURL
        guard let base else { throw .unresolvedPath(path, useCDN: useCDN) }
        var root = base.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        let joined = root + (path.hasPrefix("/") || path.isEmpty ? path : "/" + path)
        guard !path.contains("://"), let url = URL(string: joined), url.host != nil else {
            throw .invalidURL("\"\(path)\" is not a path on \(root)")
        }
        return url
    }
}

extension NetworkError {
    /// A path that no environment resolved.
    static func unresolvedPath(_ path: String, useCDN: Bool) -> NetworkError {
        .invalidURL("\"\(path)\" is a path and the service has no \(useCDN ? "CDN URL" : "base URL")")
    }
}
