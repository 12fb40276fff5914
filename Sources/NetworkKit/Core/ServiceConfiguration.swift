import Foundation
import Logging

/// What a `Service` applies to every request it sends. It can be changed at runtime
/// (e.g. a tester switching servers); requests already running keep what they started with.
public struct ServiceConfiguration: Sendable {
    /// Where paths are resolved, e.g. `https://api.example.com/v1`.
    public var baseURL: URL?
    /// Where paths of requests with `useCDN` are resolved.
    public var cdnURL: URL?
    /// Seconds a request may wait for data before it fails with a timeout; a request's own `timeout` wins.
    public var timeout: TimeInterval
    /// Where completion, progress and state handlers run. Main by default, as UI code expects;
    /// use a serial queue so handlers stay in order.
    public var callbackQueue: DispatchQueue
    /// The most bytes a content-encoded (gzip, deflate) response may inflate to before it is
    /// refused, downloads to disk included (256 MiB by default): a gzip bomb fails instead of
    /// filling memory or the disk. For an in-memory request the smaller of this and
    /// `maxResponseBytes` applies.
    public var maxDecompressedBytes: Int
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
    /// Interceptors every request runs through, in order, before its own (see `RequestInterceptor`).
    public var interceptors: [any RequestInterceptor] = []
    /// Monitors told about every request's events, in order (see `EventMonitor`).
    public var eventMonitors: [any EventMonitor] = []
    /// The clock retry delays are waited on; tests put in one that does not really wait.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Where the service logs its requests (swift-log): one line per request at `info`, headers
    /// at `debug`. Nil (the default) logs nothing. NetworkKit never bootstraps logging.
    public var logger: Logger?
    /// Which secrets logs and cURL commands hide.
    public var redaction: Redaction = .standard
    /// Where this service's JSON answers keep their code, message and content; JSON and model
    /// parsers of its requests use it unless they say otherwise.
    public var envelope: ResponseEnvelope?
    /// Signs every request last, after all interceptors (see `RequestSigning`).
    public var signer: (any RequestSigning)?
    /// Where requests with a ``CachePolicy`` keep their answers: by default a 16 MiB cache in
    /// memory, owned by this configuration. Give one with a directory for a disk cache.
    public var responseCache = ResponseCache()
    /// What requests do with redirects, unless a request says otherwise (see `RedirectPolicy`).
    public var redirectPolicy: RedirectPolicy = .follow
    /// The environments `Service.useEnvironment(named:)` can switch to.
    public var environments: [ServiceEnvironment] = []
    /// The name of the environment in use (see `environment`), if one was chosen.
    public var environmentName: String?
    /// Filters every request URL passes through, in order (see `URLFilter`).
    public var urlFilters: [any URLFilter] = []
    /// Headers sent with every request, read when each request is built (so a token read here is
    /// always the current one). A request's own headers win.
    public var commonHeaders: @Sendable () -> [String: String] = { [:] }
    /// Parameters sent with every request, encoded with the request's own and read when each
    /// request is built. A request's own parameters win.
    public var commonParameters: @Sendable () -> [String: JSON] = { [:] }

    /// Creates a configuration; every argument has the default a new app wants.
    public init(
        baseURL: URL? = nil,
        cdnURL: URL? = nil,
        timeout: TimeInterval = 15,
        callbackQueue: DispatchQueue = .main,
        maxDecompressedBytes: Int = 256 * 1024 * 1024,
        environments: [ServiceEnvironment] = []
    ) {
        self.baseURL = baseURL
        self.cdnURL = cdnURL
        self.timeout = timeout
        self.callbackQueue = callbackQueue
        self.maxDecompressedBytes = maxDecompressedBytes
        self.environments = environments
        if baseURL == nil, cdnURL == nil, let first = environments.first {
            environment = first
        }
    }
}
