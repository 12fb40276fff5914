import Foundation

/// The conveniences that create the built-in interceptors. Each reads its interceptor in
/// `interceptors`; setting it replaces that interceptor where it stands, or inserts it at its
/// place in the documented order (environment, common parameters, common headers and URL filters
/// before your own interceptors; the signer last). Setting nil or an empty list removes it.
extension ServiceConfiguration {
    /// Where paths are resolved, e.g. `https://api.example.com/v1`: the base URL of `environment`.
    public var baseURL: URL? {
        get { environmentStep?.environment.baseURL }
        set { environment.baseURL = newValue }
    }

    /// Where paths of requests with `useCDN` are resolved: the CDN URL of `environment`.
    public var cdnURL: URL? {
        get { environmentStep?.environment.cdnURL }
        set { environment.cdnURL = newValue }
    }

    /// The environment paths are resolved on, the service's first step
    /// ("default", with no URLs, when it has none).
    public var environment: ServiceEnvironment {
        get { environmentStep?.environment ?? ServiceEnvironment(name: "default", baseURL: nil) }
        set { steps.setBuiltIn(EnvironmentInterceptor(newValue)) }
    }

    /// The name of the environment in use, if the service resolves paths on one.
    public var environmentName: String? {
        environmentStep?.environment.name
    }

    /// Filters every request URL passes through, in order (see `URLFilter`), on each attempt
    /// before your interceptors adapt it.
    public var urlFilters: [any URLFilter] {
        get { steps.builtIn(URLFiltersInterceptor.self)?.filters ?? [] }
        set { steps.setBuiltIn(newValue.isEmpty ? nil : URLFiltersInterceptor(newValue)) }
    }

    /// Header fields sent with every request, read when each request is prepared (so a token
    /// read here is always the current one); a request's own fields of a name win over these.
    /// Added before your interceptors prepare the request.
    public var commonHeaderFields: @Sendable () -> HTTPFields {
        get {
            guard let step = steps.builtIn(CommonHeaderFieldsInterceptor.self) else { return { [:] } }
            return step.headerFields
        }
        set { steps.setBuiltIn(CommonHeaderFieldsInterceptor(newValue)) }
    }

    /// Parameters sent with every request, encoded with the request's own and read when each
    /// request is prepared; a request's own parameters win. Added before your interceptors
    /// prepare the request.
    public var commonParameters: @Sendable () -> [String: JSON] {
        get {
            guard let step = steps.builtIn(CommonParametersInterceptor.self) else { return { [:] } }
            return step.parameters
        }
        set { steps.setBuiltIn(CommonParametersInterceptor(newValue)) }
    }

    /// Signs every request last, after every other interceptor, the request's own included
    /// (see `RequestSigning`), so the signature covers what they changed.
    public var signer: (any RequestSigning)? {
        get { steps.builtIn(SigningInterceptor.self)?.signer }
        set { steps.setBuiltIn(newValue.map(SigningInterceptor.init)) }
    }

    private var environmentStep: EnvironmentInterceptor? {
        steps.builtIn(EnvironmentInterceptor.self)
    }
}
