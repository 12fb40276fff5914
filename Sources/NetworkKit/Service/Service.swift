import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests. A service owns exactly one transport (a `URLSession` by default), keeps
/// every request from `start` until its handlers have run, and sends each through the
/// `RequestPipeline`: build → cache → adapt → transfer → validate → parse → retry? → finish.
///
/// Use `Service.shared`, or make one per backend with its own configuration.
public final class Service: Sendable {
    /// The service most apps need: default session, no base URL, callbacks on the main queue.
    public static let shared = Service()

    /// The one transport behind this service.
    public let transport: any Transport
    let requests = RequestRegistry()
    /// The configuration, and what the pipeline reads of it, made at each change.
    private let settings: Protected<(configuration: ServiceConfiguration, pipeline: PipelineSettings)>
    private let executor: PipelineExecutor
    /// The parts that watch or hold requests back, each made when a request first needs it.
    private let watchers = Protected(Watchers())
    /// Whether the service takes requests, or is shutting down (`Service+Shutdown.swift`).
    let shutdownPhase = Protected(ShutdownPhase.open)
    /// The WebSockets it handed out, which its shutdown closes.
    let openWebSockets = OpenWebSockets()

    private struct Watchers {
        var timeLimits: TimeLimits?
        var idleWatch: IdleWatch?
        var inFlight: InFlightGate?
    }

    /// Creates a service that sends through `transport`.
    public convenience init(configuration: ServiceConfiguration = ServiceConfiguration(), transport: any Transport) {
        self.init(configuration: configuration, transport: transport, pipelineQueue: Self.makePipelineQueue())
    }

    /// Creates a service with its own `URLSession`; `sessionConfiguration` is copied into it.
    public convenience init(
        configuration: ServiceConfiguration = ServiceConfiguration(),
        sessionConfiguration: URLSessionConfiguration = .default
    ) {
        let queue = Self.makePipelineQueue()
        let transport = URLSessionTransport(configuration: sessionConfiguration, delegateQueue: queue)
        self.init(configuration: configuration, transport: transport, pipelineQueue: queue)
    }

    /// Creates a service with its own `URLSession` that reaches servers as `connection` says;
    /// throws `NetworkError.connection(.unsupported(feature:transport:))` at once for a setting
    /// URLSession cannot honour here (see "Proxies, trust and cookies").
    public convenience init(
        configuration: ServiceConfiguration = ServiceConfiguration(),
        sessionConfiguration: URLSessionConfiguration = .default,
        connection: ConnectionSettings
    ) throws(NetworkError) {
        let queue = Self.makePipelineQueue()
        let configured = try URLSessionTransport.sessionConfiguration(sessionConfiguration, connection: connection)
        let transport = URLSessionTransport(configuration: configured, delegateQueue: queue)
        self.init(configuration: configuration, transport: transport, pipelineQueue: queue)
    }

    private init(configuration: ServiceConfiguration, transport: any Transport, pipelineQueue: DispatchQueue) {
        self.transport = transport
        settings = Protected((configuration, configuration.pipelineSettings))
        executor = PipelineExecutor(queue: pipelineQueue)
    }

    private static func makePipelineQueue() -> DispatchQueue {
        DispatchQueue(label: "NetworkKit.pipeline", target: ParsingQueue.shared)
    }

    deinit {
        transport.finishAndInvalidate()
    }

    /// What a request's pipeline reads of the configuration new requests are sent with.
    var pipelineSettings: PipelineSettings {
        settings.withLock { $0.pipeline }
    }

    /// The configuration new requests are sent with; set it to switch servers at runtime.
    public var configuration: ServiceConfiguration {
        get { settings.withLock { $0.configuration } }
        set { settings.withLock { $0 = (newValue, newValue.pipelineSettings) } }
    }

    /// Changes part of the configuration in one step: `service.configure { $0.baseURL = staging }`.
    public func configure(_ change: (inout ServiceConfiguration) -> Void) {
        settings.withLock { settings in
            change(&settings.configuration)
            settings.pipeline = settings.configuration.pipelineSettings
        }
    }

    /// Sends `request` through the pipeline, in a task of the service's (on its pipeline queue
    /// where Swift has task executors; never the caller's thread). Its handlers run on the main actor when it finishes. Starting a
    /// request that was started before does nothing; one cancelled before start finishes
    /// cancelled, and one started once the service began to shut down finishes at once with
    /// ``NetworkError/serviceShutDown``.
    public func start(_ request: AnyRequest) {
        guard let pipeline = pipeline(for: request) else { return }
        request.attach(.pipeline(executor.task { await pipeline.run() }))
    }

    /// Moves `request` to running and returns the pipeline that will send it; nil when it was
    /// started before, or was cancelled before start (it has finished cancelled then).
    func pipeline(for request: AnyRequest) -> RequestPipeline? {
        if isShutDown { request.stop(with: .serviceShutDown) }
        // Only what a start needs, read under the lock: not a copy of the whole configuration.
        let pipelineSettings = settings.withLock { $0.pipeline }
        let context = StartContext(registry: requests)
        let options = request.options
        // A stopped download finishes once its file is closed; a WebSocket once a connection its
        // upgrade opened is closed (their kind says so); a cache-then-network request once its
        // cached value's handlers have returned.
        let pipelineFinishesStops = options.kind.pipelineFinishesStops || options.cache?.mode == .cacheThenNetwork
        switch request.start(context, pipelineFinishesStops: pipelineFinishesStops) {
        case .started:
            return RequestPipeline(request: request, options: options, settings: pipelineSettings, service: self)
        case .finishedAtStart, .startedBefore:
            return nil
        }
    }

    /// A `curl` command that sends `request` as this service would send its first attempt: built
    /// with the current configuration and adapted by the interceptors (signatures included), but
    /// not sent. Secrets are hidden as `redaction` says, the configuration's by default;
    /// `Redaction.none` gives a command that runs with the real credentials.
    public func curlCommand(for request: AnyRequest, redaction: Redaction? = nil) async throws(NetworkError) -> String {
        let redaction = redaction ?? settings.withLock { $0.configuration.redaction }
        let pipeline = RequestPipeline(request: request, options: request.options,
                                       settings: pipelineSettings, service: self)
        return try await pipeline.firstAttempt().curlCommand(redaction: redaction)
    }

    /// Cancels the running request with this identity; returns false when there is none.
    @discardableResult
    public func cancel(id: RequestID) -> Bool {
        guard let request = requests.request(for: id) else { return false }
        request.cancel()
        return true
    }

    /// Cancels every running request of this service.
    public func cancelAll() {
        for request in requests.all { request.cancel() }
    }

    /// How many requests are between start and finish.
    public var activeRequestCount: Int {
        requests.count
    }

    /// How many of them wait for room where the configuration limits the requests in flight
    /// (``ServiceConfiguration/maxRequestsInFlight``).
    public var waitingRequestCount: Int {
        watchers.withLock { $0.inFlight }?.waitingCount ?? 0
    }
}

extension Service {
    /// Finishes requests whose time limit passes; made for the first request with one.
    var timeLimits: TimeLimits {
        watchers.withLock { $0.timeLimits.madeOnFirstUse(TimeLimits.init) }
    }

    /// Fails transfers that go idle for their request's timeout; made for the service's first transfer.
    var idleWatch: IdleWatch {
        watchers.withLock { $0.idleWatch.madeOnFirstUse(IdleWatch.init) }
    }

    /// Holds requests back where the configuration limits those in flight; made for the first
    /// request under a limit.
    var inFlight: InFlightGate {
        watchers.withLock { $0.inFlight.madeOnFirstUse(InFlightGate.init) }
    }
}

extension Optional {
    /// The wrapped value, made with `make` and kept the first time there is none.
    fileprivate mutating func madeOnFirstUse(_ make: () -> Wrapped) -> Wrapped {
        if let made = self { return made }
        let made = make()
        self = made
        return made
    }
}

extension Service {
    /// Runs a new request with `options` and `parser` through this service, as a request it was
    /// sent (a WebSocket's reconnection opens its new connection so).
    func run(options: RequestOptions, parser: any ResponseParser) async -> AnyResult {
        await anyResult(of: AnyRequest(options: options, parser: parser))
    }
}

extension Service {
    /// Sends `request` and returns its parsed value. Cancelling the calling `Task` cancels the request.
    ///
    /// The pipeline runs in the calling task (which is never the main actor: this function is
    /// not isolated to it), so no thread is woken to start it. The value arrives as soon as
    /// parsing ends; completion handlers added to the request still run on the main actor.
    public func send<Output>(_ request: Request<Output>) async throws(NetworkError) -> Output {
        try await result(of: request).get()
    }

    /// Sends `request` and returns its value or error as a `Result`, never throwing.
    /// Cancelling the calling `Task` cancels the request.
    package func result<Output>(of request: Request<Output>) async -> Result<Output, NetworkError> {
        await anyResult(of: request).typed()
    }

    /// The pipeline's side of `result(of:)`, the same for every output type.
    func anyResult(of request: AnyRequest) async -> AnyResult {
        await withTaskCancellationHandler {
            if let pipeline = pipeline(for: request) {
                return await pipeline.run()
            }
            if let result = request.result {
                return result
            }
            // Started elsewhere and still running: wait for it.
            return await withCheckedContinuation { continuation in
                request.observeAnyResult { continuation.resume(returning: $0) }
            }
        } onCancel: {
            request.cancel()
        }
    }

    /// Sends `request` and returns its value with the response it came from: status, headers
    /// and what was measured (duration, attempts, bytes). Cancelling the calling `Task` cancels it.
    public func reply<Output>(to request: Request<Output>) async throws(NetworkError) -> Reply<Output> {
        let value = try await send(request)
        guard let head = request.responseHead, let metrics = request.metrics else {
            throw .transport(TransportError(.badServerResponse, detail: "the request finished without a response"))
        }
        return Reply(value: value, head: head, metrics: metrics, businessStatus: request.businessStatus)
    }
}

/// A request's value and the response it came from.
public struct Reply<Output: Sendable>: Sendable {
    /// The parsed value.
    public let value: Output
    /// The response head: status, headers, the URL that answered.
    public let head: ResponseHead
    /// What was measured: duration, attempts, bytes sent and received.
    public let metrics: RequestMetrics

    /// The business code and message, where the value was read through an envelope (see
    /// ``BusinessStatus``).
    public let businessStatus: BusinessStatus?

    /// The status of the answer (`head.status`).
    public var status: HTTPResponse.Status { head.status }
}

/// The handler path, awaited: what the completion handlers get, for code (tests, tools) that
/// checks what the handlers saw.
extension Service {
    /// Starts `request` as ``start(_:)-(AnyRequest)`` does (the pipeline runs on the pipeline
    /// queue) and returns the result its completion handlers get, once the main actor ran them: after every progress and state handler call, so what those recorded is complete.
    /// `result(of:)` returns as soon as parsing ends instead. A request
    /// started before is not started again; one that has finished returns its stored result.
    /// Cancelling the calling `Task` cancels the request.
    package func completion<Output>(of request: Request<Output>) async -> Result<Output, NetworkError> {
        await awaitCompletion(adding: { handler in request.addCompletionHandler { _, result in handler(result) } },
                              start: { start(request) }, cancel: { request.cancel() })
    }

    /// Starts the streaming `request` and returns what its completion handlers get, once the
    /// main actor ran them: after every item handler call. Cancelling the calling `Task`
    /// cancels the request.
    package func completion<Item>(of request: StreamRequest<Item>) async -> Result<StreamSummary, NetworkError> {
        await awaitCompletion(adding: { handler in request.addCompletionHandler { _, result in handler(result) } },
                              start: { start(request) }, cancel: { request.cancel() })
    }

    /// Starts `batch` and returns the result its completion handlers get, on the main actor
    /// after every progress handler call. Cancelling the calling `Task` cancels the batch.
    package func completion(of batch: BatchRequest) async -> Result<RequestValues, NetworkError> {
        await awaitCompletion(adding: { handler in batch.addCompletionHandler { _, result in handler(result) } },
                              start: { start(batch) }, cancel: { batch.cancel() })
    }

    /// Starts `chain` and returns the result its completion handlers get, on the main actor.
    /// Cancelling the calling `Task` cancels the chain.
    package func completion(of chain: ChainRequest) async -> Result<RequestValues, NetworkError> {
        await awaitCompletion(adding: { handler in chain.addCompletionHandler { _, result in handler(result) } },
                              start: { start(chain) }, cancel: { chain.cancel() })
    }

    /// Adds a completion handler through `addHandler`, starts through `begin`, and returns what
    /// the handler gets; `cancel` runs if the calling task is cancelled meanwhile.
    private func awaitCompletion<Value: Sendable>(
        adding addHandler: (@escaping @Sendable (Value) -> Void) -> Void,
        start begin: () -> Void,
        cancel: @escaping @Sendable () -> Void
    ) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                addHandler { continuation.resume(returning: $0) }
                begin()
            }
        } onCancel: {
            cancel()
        }
    }
}
