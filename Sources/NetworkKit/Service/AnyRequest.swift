import Foundation

/// A request of any output type: its identity, options, lifecycle and cancellation. Every
/// request is a ``Request``, the typed layer on top, which adds the parser and the typed
/// handlers; a service, a batch or a chain works with requests as `AnyRequest`.
///
/// `@unchecked Sendable`: every stored property is a `let` of a Sendable type; the lifecycle and
/// the request's data (`Locked`) are read and written only inside its `Protected`'s lock (see
/// `withLocked`). The class is
/// not final: ``Request`` is its typed subclass.
public class AnyRequest: @unchecked Sendable {
    /// This request's process-unique identity.
    public let id = RequestID.next()
    /// The parser chain, without its output type (`Request.parser` has it).
    let anyParser: any ResponseParser
    private let locked: Protected<Locked>

    init(options: RequestOptions, parser: any ResponseParser) {
        anyParser = parser
        locked = Protected(Locked(options: options))
    }

    /// Runs `body` on the lifecycle and the request's data under the request's one lock.
    func withLocked<Value>(_ body: (inout Locked) throws -> Value) rethrows -> Value {
        try locked.withLock(body)
    }

    /// Where the request is in its lifecycle.
    public var state: RequestState {
        withLocked { $0.lifecycle.state }
    }

    /// The response head of the latest attempt, once it has arrived.
    public var responseHead: ResponseHead? {
        withLocked { $0.attempt.head }
    }

    /// The business code and message of the latest answer, where a parser read them through an
    /// envelope and the code meant success (see ``BusinessStatus``).
    public var businessStatus: BusinessStatus? {
        withLocked { $0.attempt.businessStatus }
    }

    /// How many times the request has been sent so far (retries included).
    public var attemptCount: Int {
        withLocked { $0.attempt.count }
    }

    /// What was measured about the request, once it has finished: duration, attempts, bytes, status.
    public var metrics: RequestMetrics? {
        withLocked { $0.metrics }
    }

    /// Cancels the request. Running: the transfer stops and the handlers get `NetworkError.cancelled`.
    /// Not started yet: it finishes cancelled as soon as it is started. Finished already: nothing happens.
    public func cancel() {
        stop(with: .cancelled)
    }

    /// One option of what the request asks for; the pipeline reads them all when it starts.
    subscript<Value>(option path: WritableKeyPath<RequestOptions, Value>) -> Value {
        get { withLocked { $0.options[keyPath: path] } }
        set { withLocked { $0.options[keyPath: path] = newValue } }
    }

    /// The options as they are now.
    var options: RequestOptions {
        withLocked { $0.options }
    }
}

extension AnyRequest {
    /// Where the request goes: an absolute URL, or a path on the service's base URL.
    public var target: RequestTarget {
        get { self[option: \.target] }
        set { self[option: \.target] = newValue }
    }

    /// The HTTP method.
    public var method: HTTPRequest.Method {
        get { self[option: \.method] }
        set { self[option: \.method] = newValue }
    }

    /// Parameters: in the query, or as the body when `body` is `.form` or `.json`.
    public var parameters: [String: JSON] {
        get { self[option: \.parameters] }
        set { self[option: \.parameters] = newValue }
    }

    /// Header fields sent with this request; they win over the service's.
    public var headerFields: HTTPFields {
        get { self[option: \.headerFields] }
        set { self[option: \.headerFields] = newValue }
    }

    /// How long the request may go without receiving or sending a byte before it fails; nil
    /// uses the service's ``ServiceConfiguration/timeout``. Zero or less fails the request with
    /// `NetworkError.invalidRequest`.
    public var timeout: Duration? {
        get { self[option: \.timeout] }
        set { self[option: \.timeout] = newValue }
    }

    /// Resolve a path on the service's CDN URL instead of its base URL.
    public var useCDN: Bool {
        get { self[option: \.useCDN] }
        set { self[option: \.useCDN] = newValue }
    }

    /// Status codes that count as success; others fail with `NetworkError.httpStatus`.
    public var acceptableStatusCodes: Range<Int> {
        get { self[option: \.acceptableStatusCodes] }
        set { self[option: \.acceptableStatusCodes] = newValue }
    }

    /// Compress the request body with gzip or deflate before sending (and say so in
    /// `Content-Encoding`), for servers that accept compressed uploads. Nil sends it as is.
    public var bodyEncoding: ContentCoding? {
        get { self[option: \.bodyEncoding] }
        set { self[option: \.bodyEncoding] = newValue }
    }

    /// What the request sends as its body, and so where its parameters go (see `RequestBody`).
    public var body: RequestBody {
        get { self[option: \.body] }
        set { self[option: \.body] = newValue }
    }
}

extension AnyRequest {
    /// Your interceptors of this request alone, in the order they run: after the service's own
    /// (see `usesServiceInterceptors` and <doc:Interceptors>) and before the service's signer,
    /// which signs what they changed; its ``parameterRules`` are checked after them. Add one with
    /// `append`.
    public var interceptors: [any RequestInterceptor] {
        get { self[option: \.interceptors].ownInterceptors }
        set { withLocked { $0.options.interceptors.replaceOwnInterceptors(with: newValue) } }
    }

    /// Whether the interceptors you added to the service run for this request too (true by
    /// default). The service's built-in interceptors (environment, common parameters and headers, URL
    /// filters, signer) run either way.
    public var usesServiceInterceptors: Bool {
        get { self[option: \.usesServiceInterceptors] }
        set { self[option: \.usesServiceInterceptors] = newValue }
    }

    /// The service's defaults this request leaves out, each on its own: its common headers or
    /// parameters, its signer, its envelope (empty by default). The built-in interceptors that carry
    /// them are left out of this request's chain; the rest of the chain runs as usual.
    ///
    ///     upload.skippedServiceDefaults = [.commonParameters, .signer]
    public var skippedServiceDefaults: ServiceDefaults {
        get { self[option: \.skippedServiceDefaults] }
        set { self[option: \.skippedServiceDefaults] = newValue }
    }

    /// How important this request is next to the service's others (``RequestPriority/normal`` by
    /// default): it orders the wait where the service limits its requests in flight, and is the
    /// `URLSessionTask.priority` of its transfers through `URLSessionTransport`.
    ///
    ///     thumbnail.priority = .low
    public var priority: RequestPriority {
        get { self[option: \.priority] }
        set { self[option: \.priority] = newValue }
    }

    /// Whether sending this request twice does no harm, which retry policies require. Nil (the
    /// default) goes by the method: GET, HEAD, PUT, DELETE and OPTIONS are idempotent, POST and
    /// PATCH are not. Set it to true to let a POST be retried.
    public var isIdempotent: Bool? {
        get { self[option: \.isIdempotent] }
        set { self[option: \.isIdempotent] = newValue }
    }
}

extension AnyRequest {
    /// Limits on what the server may send: a larger body or a longer wait fails the request with
    /// `NetworkError.responseTooLarge` or `.timeLimitExceeded` instead of taking the process's
    /// memory or time.
    ///
    /// The most body bytes to accept, counted as delivered (after any content decoding, so a
    /// gzip bomb is caught by what it inflates to); a `Content-Length` above it fails before the
    /// body is read. Nil uses the service's limit for the kind of request (`maxResponseBytes`,
    /// or `maxDownloadBytes` for downloads to disk).
    public var maxResponseBytes: Int64? {
        get { self[option: \.maxResponseBytes] }
        set { self[option: \.maxResponseBytes] = newValue }
    }

    /// The most time the request may take from start to finish, retries and waits between
    /// them included (`timeout` is the idle time between bytes). Nil uses the service's
    /// (`timeLimit`, or `downloadTimeLimit` for downloads to disk).
    public var timeLimit: Duration? {
        get { self[option: \.timeLimit] }
        set { self[option: \.timeLimit] = newValue }
    }

    /// What this request does with redirects; nil uses the service's `redirectPolicy`.
    public var redirectPolicy: RedirectPolicy? {
        get { self[option: \.redirectPolicy] }
        set { self[option: \.redirectPolicy] = newValue }
    }
}

/// What the pipeline tells a request as it runs, and how the request carries out what its
/// lifecycle decides. Callbacks that must precede the finish (state, progress) are queued while
/// the lock is held: a finish decided after them is queued after them.
extension AnyRequest {
    /// How `start` found the request.
    enum StartOutcome {
        case started
        /// Stopped before start: it has finished now.
        case finishedAtStart
        case startedBefore
    }

    /// Moves ready → running and enters the service's registry. Only the first start counts. A
    /// request whose `pipelineFinishesStops` (a download, a cache-then-network request) is
    /// finished by its pipeline when stopped.
    func start(_ context: StartContext, pipelineFinishesStops: Bool = false) -> StartOutcome {
        let (action, handlers) = withLocked { locked in
            let fed = locked.feed { $0.start(context, pipelineFinishesStops: pipelineFinishesStops) }
            if case .run = fed.0 {
                context.registry.insert(self)
                locked.stateReport(.running).map(queue)
            }
            return fed
        }
        handlers.map(call)
        switch action {
        case .run: return .started
        case .finish: return .finishedAtStart
        case .ignore: return .startedBefore
        }
    }

    /// Keeps `item` so `cancel()` can stop it; stops it at once when the request was stopped or
    /// finished meanwhile.
    func attach(_ item: CancellableWork.Item) {
        if withLocked({ $0.lifecycle.attach(item) }) == .cancelAtOnce { item.cancel() }
    }

    /// Stops the request and finishes it with `error`: what `cancel()` does, for the kit's own
    /// reasons too (a size or time limit). The first finish wins.
    func stop(with error: NetworkError) {
        let (action, handlers) = withLocked { $0.feed { $0.stop(error) } }
        switch action {
        case .ignore:
            break
        case .cancel(let work), .cancelAndFinish(let work, _):
            work.cancel()
        }
        handlers.map(call)
    }

    /// Commits the request to its result before an act that cannot be undone (a download's
    /// file moved into place): true when it still runs, and a stop after it changes nothing;
    /// false when it was stopped or finished, and the act must not happen.
    func commit() -> Bool {
        withLocked { $0.lifecycle.commit() }
    }

    /// Finishes the request from its pipeline: a stop wins over `result`, and an earlier finish
    /// over both. Returns what the request finished with and the metrics as kept.
    func finish(_ result: AnyResult, metrics: RequestMetrics) -> (result: AnyResult, metrics: RequestMetrics) {
        let finished = withLocked { $0.finish(result, metrics: metrics) }
        finished.handlersToCall.map(call)
        return (finished.result, finished.metrics)
    }

    /// The result, once the request has finished.
    var result: AnyResult? {
        withLocked { $0.lifecycle.result }
    }

    /// True once the request was stopped or has finished.
    var isStoppedOrFinished: Bool {
        withLocked { $0.lifecycle.isStoppedOrFinished }
    }

    /// Calls `observer` with the result as soon as it exists (right away if it does).
    func observeAnyResult(_ observer: @escaping @Sendable (AnyResult) -> Void) {
        if let result = withLocked({ $0.observeResult(observer) }) { observer(result) }
    }

    /// A new attempt is about to be sent: count it, forget the last one's response and progress.
    func beginAttempt() -> Int {
        withLocked { $0.beginAttempt() }
    }

    /// The response head of the current attempt.
    func didReceive(head: ResponseHead) {
        withLocked { $0.receive(head: head) }
    }

    /// The business status the current attempt's parsers read, if any.
    func didRead(_ status: BusinessStatus?) {
        withLocked { $0.read(status) }
    }

    /// A download's file will be `total` bytes long (progress counts the whole file, bytes
    /// resumed from an earlier attempt included).
    func expectBody(total: Int64?) {
        withLocked { $0.expectBody(total: total) }
    }

    /// Download progress: `bytes` of the body have arrived.
    func didReceive(bodyBytes bytes: Int64) {
        reportProgress { $0.progress(.download, completedBytes: bytes) }
    }

    /// Upload progress.
    func didSend(bytes: Int64, of total: Int64?) {
        reportProgress { $0.progress(.upload, completedBytes: bytes, totalBytes: .some(total)) }
    }

    /// Makes sure a download progress handler sees 100% before completion.
    func didReceiveWholeBody(bytes: Int64) {
        reportProgress { $0.progress(.download, completedBytes: bytes, totalBytes: .some(bytes)) }
    }

    /// Queues `work` on the main actor while the request runs, under the lock, so it runs before
    /// a finish decided after it; returns false (and queues nothing) when the request is not
    /// running.
    func queueWhileRunning(_ work: @escaping @MainActor @Sendable () -> Void) -> Bool {
        withLocked { locked in
            guard locked.lifecycle.isActive else { return false }
            MainActorQueue.async(work)
            return true
        }
    }

    /// Cache then network: tells the cached-reply observers (`Service.replies(to:)`), then calls
    /// the completion handlers with the cached value on the main actor, and returns once they
    /// ran. The request keeps running; its handlers are called again when it finishes.
    func deliverCached(_ reply: CachedReply) async {
        guard let listeners = withLocked({ $0.cachedReplyListeners() }) else { return }
        for observer in listeners.observers { observer(reply) }
        let handlers = listeners.completionHandlers
        guard !handlers.isEmpty else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            MainActorQueue.async {
                for handler in handlers { handler(self, .success(reply.value)) }
                continuation.resume()
            }
        }
    }

    private func reportProgress(_ event: (inout Locked) -> Locked.ProgressReport?) {
        withLocked { locked in
            guard let report = event(&locked) else { return }
            MainActorQueue.async { for handler in report.handlers { handler(self, report.progress) } }
        }
    }

    private func queue(_ report: Locked.StateReport) {
        MainActorQueue.async { for handler in report.handlers { handler(self, report.state) } }
    }

    /// Carries out a finish: out of the service's registry before anyone hears of it (a batch
    /// that observes it may finish at once), the observers, then the handlers on the main actor
    /// (the queued block keeps the request alive until they have run).
    private func call(_ handlers: Locked.HandlersToCall) {
        handlers.finish.context.registry.remove(id)
        let result = handlers.finish.result
        for observer in handlers.resultObservers { observer(result) }
        let completionHandlers = handlers.completionHandlers, stateHandlers = handlers.stateHandlers
        guard !completionHandlers.isEmpty || !stateHandlers.isEmpty else { return }
        let state = handlers.finish.state
        MainActorQueue.async {
            for handler in stateHandlers { handler(self, state) }
            for handler in completionHandlers { handler(self, result) }
        }
    }
}


/// A typed request (`Request`, `StreamRequest`) whose handlers get the request as its own class.
protocol TypedHandlers: AnyRequest {}

/// The handlers of every typed request, written once: each wraps the caller's closure into the
/// untyped handler the request keeps (`Locked`), which keeps handlers of every type alike and calls them with the request itself.
/// The wrapper holds the request unowned (the request holds its handlers); whoever calls a
/// handler holds the request until it returns.
extension TypedHandlers {
    /// Keeps a completion handler for the finish; one added after it is called with the stored
    /// result, queued on the main actor as every handler is.
    func addTypedCompletionHandler<Output>(_ handler: @escaping @MainActor @Sendable (Self, Result<Output, NetworkError>) -> Void) {
        let action = withLocked { locked in
            locked.addCompletionHandler { [unowned self] _, result in handler(self, result.typed()) }
        }
        if case .callNow(let result) = action {
            MainActorQueue.async { handler(self, result.typed()) }
        }
    }

    /// Keeps a progress handler while the request has not finished.
    func addTypedProgressHandler(_ handler: @escaping @MainActor @Sendable (Self, TransferProgress) -> Void) {
        withLocked { locked in
            locked.addProgressHandler { [unowned self] _, progress in handler(self, progress) }
        }
    }

    /// Keeps a state handler while the request has not finished.
    func addTypedStateHandler(_ handler: @escaping @MainActor @Sendable (Self, RequestState) -> Void) {
        withLocked { locked in
            locked.addStateHandler { [unowned self] _, state in handler(self, state) }
        }
    }
}
