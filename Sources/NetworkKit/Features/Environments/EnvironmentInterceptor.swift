import Foundation

/// Resolves a request's path on the environment's base URL (or its CDN URL, for requests with
/// ``AnyRequest/useCDN``): the first step of every service with a base URL. Created by
/// `ServiceConfiguration.baseURL`, `cdnURL`, `environment` and `Service.useEnvironment(named:)`.
struct EnvironmentInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 0)
    static let prepares = true

    /// The servers paths are resolved on.
    var environment: ServiceEnvironment

    /// Resolves paths on `environment`.
    init(_ environment: ServiceEnvironment) {
        self.environment = environment
    }

    /// Turns a `.path` target into the URL it names on the environment; leaves a URL as it is.
    /// - Throws: `NetworkError.invalidURL` when the environment has no base (or CDN) URL, or the
    ///   path does not make a URL on it.
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        guard case .path(let path) = draft.target else { return }
        draft.target = .url(try environment.resolve(path, useCDN: draft.useCDN))
    }
}
