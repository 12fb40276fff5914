import Foundation

/// What a pipeline reads of its service's configuration, in the pipeline's own words: made once
/// per change of the configuration (``ServiceConfiguration`` says what each setting means), so a
/// request starts with a copy and keeps it to its finish.
struct PipelineSettings: Sendable {
    /// The service's interceptors, as a chain.
    var chain = InterceptorChain([])
    /// The monitors every request tells, in order.
    var monitors: [any EventMonitor] = []
    var envelope: ResponseEnvelope?
    var jsonDecoder: JSONDecoder?
    var responseValidation: ResponseValidation?
    /// How long a transfer may go without a byte.
    var timeout: Duration = .seconds(15)
    var timeLimit: Duration?
    var downloadTimeLimit: Duration?
    var maxResponseBytes: Int64?
    var maxDownloadBytes: Int64?
    var maxDecompressedBytes = Int64.max
    /// The `Accept-Encoding` every request sends unless it names its own.
    var acceptEncoding = "identity"
    /// The environment paths are resolved on (a download's identity reads it).
    var environment = ServiceEnvironment(name: "default", baseURL: nil)
    /// Where requests with a ``CachePolicy`` keep their answers; nil caches nothing.
    var responseCache: (any ResponseCaching)?
    var ignoredCacheKeyArguments: Set<String> = []
    /// Where requests send and keep cookies, if the service keeps any.
    var cookies: (any CookieStoring)?
    var redirectPolicy = RedirectPolicy.follow
    var unprocessedResendLimit = 0
    /// The service's limits on requests in flight; nil when it sets none (requests never wait).
    var inFlightLimits: InFlightLimits.Limits?
    /// The clock retry delays and reconnections are waited on.
    var clock: any Clock<Duration> = ContinuousClock()
    /// Dates on `clock`: cache freshness, `Retry-After` dates.
    var dates = ClockDates(ContinuousClock())
    /// What observes each request (spans and metrics); nil when nothing does.
    var observation: (any RequestObservation)?
}
