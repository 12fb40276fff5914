import Foundation

/// Resolves a request's path on the environment's base URL (or its CDN URL, for requests with
/// ``AnyRequest/useCDN``): the first step of every service with a base URL. Created by
/// `ServiceConfiguration.baseURL`, `cdnURL`, `environment` and `Service.useEnvironment(named:)`.
public struct EnvironmentInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 0)
    static let prepares = true

    /// The servers paths are resolved on.
    public var environment: ServiceEnvironment

    /// Resolves paths on `environment`.
    public init(_ environment: ServiceEnvironment) {
        self.environment = environment
    }

    /// Turns a `.path` target into the URL it names on the environment; leaves a URL as it is.
    /// - Throws: `NetworkError.invalidURL` when the environment has no base (or CDN) URL, or the
    ///   path does not make a URL on it.
    public func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        guard case .path(let path) = draft.target else { return }
        draft.target = .url(try resolve(path, useCDN: draft.useCDN))
    }

    /// The URL `path` names on the base URL (or the CDN URL).
    func resolve(_ path: String, useCDN: Bool) throws(NetworkError) -> URL {
        let base = useCDN ? environment.cdnURL : environment.baseURL
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
