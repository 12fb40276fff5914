import Foundation
import Logging

/// What a `Service` applies to every request it sends. It can be changed at runtime
/// (e.g. a tester switching servers); requests already running keep what they started with.
public struct ServiceConfiguration: Sendable {
    /// How long a request may go without receiving or sending a byte before it fails with a
    /// timeout (15 s by default); a request's own `timeout` wins. It must be positive: a request
    /// with a timeout of zero or less fails with `NetworkError.invalidRequest` before it is sent.
    /// A timeout of a billion seconds or more is none. The kit watches it itself, to the tenth
    /// of a second, on every transport and platform.
    public var timeout: Duration
    /// The most bytes a content-encoded (gzip, deflate, brotli, zstd) response may inflate to
    /// before it is refused, downloads to disk and streams included (256 MiB by default): a bomb
    /// fails instead of filling memory or the disk. For an in-memory request the smaller of this
    /// and `maxResponseBytes` applies.
    public var maxDecompressedBytes: Int64
    /// The content codings requests offer in `Accept-Encoding`, in this order (`gzip, deflate,
    /// br, zstd` by default, a browser's order); empty offers `identity` alone. A request that
    /// sets its own `Accept-Encoding` sends that. Whatever was offered, an answer in any
    /// ``ContentCoding`` is decoded: on NIO by the kit, on URLSession by libcurl.
    public var acceptedCodings: [ContentCoding] = ContentCoding.allCases
    /// The most body bytes an in-memory request accepts (64 MiB by default), counted as
    /// delivered, after any content decoding; nil accepts any size. A request's own wins.
    public var maxResponseBytes: Int64? = 64 * 1024 * 1024
    /// The most body bytes a download to disk accepts; nil (the default) accepts any size.
    public var maxDownloadBytes: Int64?
    /// The most time an in-memory request may take from start to finish, retries included
    /// (two minutes by default; `timeout` is only the idle time between bytes). Nil sets no limit.
    public var timeLimit: Duration? = .seconds(120)
    /// The most time a download to disk may take; nil (the default) sets no limit.
    public var downloadTimeLimit: Duration?
    /// Your own interceptors, in the order they run (see `RequestInterceptor` and
    /// <doc:Interceptors>): after the service's built-in interceptors that prepare every request (``environment``,
    /// ``commonParameters``, ``commonHeaderFields``, ``urlFilters``) and before its ``signer``, which
    /// signs what they changed. A request's own interceptors run after these. Add one with
    /// `append`; the built-in ones are set through their own properties and are not in it.
    public var interceptors: [any RequestInterceptor] {
        get { allInterceptors.ownInterceptors }
        set { allInterceptors.replaceOwnInterceptors(with: newValue) }
    }
    /// Every interceptor in the order it runs: the service's built-in ones around ``interceptors``.
    var allInterceptors: [any RequestInterceptor] = [] {
        didSet { chain = InterceptorChain(allInterceptors) }
    }
    /// `allInterceptors` as a chain, made once per change rather than once per request.
    private(set) var chain = InterceptorChain([])
    /// Monitors told about every request's events, in order (see `EventMonitor`).
    public var eventMonitors: [any EventMonitor] = []
    /// The service's one time source: what retry delays and reconnections wait on, and what
    /// dates are read against (a cache entry's freshness, a `Retry-After` date). On another clock
    /// than the system's (a test's), dates start at the system's date when the configuration is
    /// given to a service and move on as that clock does.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Where the service logs its requests (swift-log): one line per request at `info`, headers
    /// at `debug`. Nil (the default) logs nothing. NetworkKit never bootstraps logging.
    public var logger: Logger?
    /// Which secrets logs, cURL commands and spans' `url.full` hide.
    public var redaction: Redaction = .standard
    /// Whether this service's requests get spans and metrics when the package's `Observability`
    /// trait is on and a tracer or metrics backend is bootstrapped (see <doc:ObservingRequests>).
    /// True by default; a service that carries the telemetry itself turns it off. Without the
    /// trait nothing is recorded either way.
    public var observesRequests = true
    /// Where this service's JSON answers keep their code, message and content; JSON and model
    /// parsers of its requests use it unless they say otherwise.
    public var envelope: ResponseEnvelope?
    /// The `JSONDecoder` this service's model parsers (``ModelParser``, ``PageParser``) decode
    /// `Decodable` models with, unless a parser has its own or a converter is registered for the
    /// model's type; nil leaves it to the registry's default converter. The kit only reads it:
    /// configure it before giving it here.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.dateDecodingStrategy = .secondsSince1970
    /// configuration.jsonDecoder = decoder
    /// ```
    public var jsonDecoder: JSONDecoder?
    /// Checks every response of the service before it is parsed (status, content type, required
    /// keys or shape, business code, rules of your own); nil checks nothing beyond each request's
    /// own acceptable status codes. A request opts out with ``ServiceDefaults/responseValidation``.
    public var responseValidation: ResponseValidation?
    /// Where requests with a ``CachePolicy`` keep their answers: by default a 16 MiB cache in
    /// memory, owned by this configuration. Give one with a directory for a disk cache.
    public var responseCache = ResponseCache()
    /// Arguments (query items, and the keys of a form or JSON object body) left out of every
    /// cache key of this service, such as a timestamp among the common parameters; a policy adds
    /// its own (``CachePolicy/ignoredArguments``).
    public var ignoredCacheKeyArguments: Set<String> = []
    /// The cookies every request of the service sends and keeps (RFC 6265; see ``CookieJar``):
    /// a jar of its own per configuration by default, shared by the copies of the
    /// configuration. Nil sends and keeps none; a request opts out with
    /// ``AnyRequest/usesCookies``. The transports' own cookie handling is off: this jar is the
    /// only one, the same on every transport.
    public var cookies: CookieJar? = CookieJar()
    /// What requests do with redirects, unless a request says otherwise (see `RedirectPolicy`).
    public var redirectPolicy: RedirectPolicy = .follow
    /// The environments `Service.useEnvironment(named:)` can switch to.
    public var environments: [ServiceEnvironment] = []
    /// At most this many of the service's requests transfer at once (nil, the default, for no
    /// limit). A request that finds no room waits before its transfer, ahead of those of lower
    /// ``RequestPriority``; it holds its place for the whole transfer (its redirects, and a
    /// stream's whole connection, included) and not while it waits to retry. The limits a request
    /// starts with are the ones it keeps.
    public var maxRequestsInFlight: Int?
    /// At most this many of the service's requests transfer at once to one host (nil, the
    /// default, for no limit); see ``maxRequestsInFlight``.
    public var maxRequestsInFlightPerHost: Int?
    /// How many times one request is sent again, at once and uncounted by its retry policy,
    /// after attempts the server did not process (see ``ServerProcessing``: a connection the
    /// server was rotating); past that, the attempt's failure goes to the retry policy. 0 sends
    /// none again.
    public var unprocessedResendLimit = 4
    /// How long the requests in flight have to finish when the service shuts down on its
    /// `ServiceGroup`'s signal (10 s by default); ``Service/shutdown(gracePeriod:)`` takes its own.
    public var shutdownGracePeriod: Duration = .seconds(10)

    /// Creates a configuration; every argument has the default a new app wants.
    public init(
        baseURL: URL? = nil,
        cdnURL: URL? = nil,
        timeout: Duration = .seconds(15),
        maxDecompressedBytes: Int64 = 256 * 1024 * 1024,
        environments: [ServiceEnvironment] = []
    ) {
        self.timeout = timeout
        self.maxDecompressedBytes = maxDecompressedBytes
        self.environments = environments
        if baseURL == nil, cdnURL == nil, let first = environments.first {
            environment = first
        } else if baseURL != nil || cdnURL != nil {
            environment = ServiceEnvironment(name: "default", baseURL: baseURL, cdnURL: cdnURL)
        }
    }
}

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
        set { allInterceptors.setBuiltIn(EnvironmentInterceptor(newValue)) }
    }

    /// The name of the environment in use, if the service resolves paths on one.
    public var environmentName: String? {
        environmentStep?.environment.name
    }

    /// Filters every request URL passes through, in order (see `URLFilter`), on each attempt
    /// before your interceptors adapt it.
    public var urlFilters: [any URLFilter] {
        get { allInterceptors.builtIn(URLFiltersInterceptor.self)?.filters ?? [] }
        set { allInterceptors.setBuiltIn(newValue.isEmpty ? nil : URLFiltersInterceptor(newValue)) }
    }

    /// Header fields sent with every request, read when each request is prepared (so a token
    /// read here is always the current one); a request's own fields of a name win over these.
    /// Added before your interceptors prepare the request.
    public var commonHeaderFields: @Sendable () -> HTTPFields {
        get {
            guard let step = allInterceptors.builtIn(CommonHeaderFieldsInterceptor.self) else { return { [:] } }
            return step.headerFields
        }
        set { allInterceptors.setBuiltIn(CommonHeaderFieldsInterceptor(newValue)) }
    }

    /// Parameters sent with every request, encoded with the request's own and read when each
    /// request is prepared; a request's own parameters win. Added before your interceptors
    /// prepare the request.
    public var commonParameters: @Sendable () -> [String: JSON] {
        get {
            guard let step = allInterceptors.builtIn(CommonParametersInterceptor.self) else { return { [:] } }
            return step.parameters
        }
        set { allInterceptors.setBuiltIn(CommonParametersInterceptor(newValue)) }
    }

    /// Signs every request last, after every other interceptor, the request's own included
    /// (see `RequestSigning`), so the signature covers what they changed.
    public var signer: (any RequestSigning)? {
        get { allInterceptors.builtIn(SigningInterceptor.self)?.signer }
        set { allInterceptors.setBuiltIn(newValue.map(SigningInterceptor.init)) }
    }

    private var environmentStep: EnvironmentInterceptor? {
        allInterceptors.builtIn(EnvironmentInterceptor.self)
    }
}

extension ServiceConfiguration {
    /// What the pipeline reads of this configuration (`Service` makes it once per change).
    var pipelineSettings: PipelineSettings {
        PipelineSettings(chain: chain, monitors: requestMonitors, envelope: envelope, jsonDecoder: jsonDecoder,
                         responseValidation: responseValidation, timeout: timeout, timeLimit: timeLimit,
                         downloadTimeLimit: downloadTimeLimit, maxResponseBytes: maxResponseBytes,
                         maxDownloadBytes: maxDownloadBytes, maxDecompressedBytes: maxDecompressedBytes,
                         acceptEncoding: acceptEncoding,
                         environment: environment, responseCache: responseCache,
                         ignoredCacheKeyArguments: ignoredCacheKeyArguments, cookies: cookies,
                         redirectPolicy: redirectPolicy, unprocessedResendLimit: unprocessedResendLimit,
                         inFlightLimits: inFlightLimits, clock: clock, dates: ClockDates(clock),
                         observation: requestObservation)
    }

    /// The `Accept-Encoding` that offers ``acceptedCodings``, in their order; `identity` for none.
    private var acceptEncoding: String {
        acceptedCodings.isEmpty ? "identity" : acceptedCodings.map(\.rawValue).joined(separator: ", ")
    }

    /// The limits on requests in flight, as the pipeline reads them; nil when neither is set.
    private var inFlightLimits: InFlightLimits.Limits? {
        guard maxRequestsInFlight != nil || maxRequestsInFlightPerHost != nil else { return nil }
        return InFlightLimits.Limits(total: maxRequestsInFlight, perHost: maxRequestsInFlightPerHost)
    }

    /// The monitors every request of the service tells, in order: ``eventMonitors``, then a
    /// ``LoggingMonitor`` when the service has a ``logger``.
    var requestMonitors: [any EventMonitor] {
        guard let logger else { return eventMonitors }
        return eventMonitors + [LoggingMonitor(logger: logger, redaction: redaction)]
    }
}
