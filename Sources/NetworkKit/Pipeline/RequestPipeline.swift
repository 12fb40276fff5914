import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one path every request takes to its handlers, in a task of the service's (`Service.start`;
/// on its pipeline queue where Swift has task executors) or in the awaiting task (`Service.send`):
///
///     build → cache → adapt → transfer → validate → parse → retry? → finish
///
/// 1. **build** the `OutgoingRequest`: every interceptor (`InterceptorChain`) prepares the request's
///    draft (a path resolved on the environment, common parameters and headers, parameter
///    rules…), which is then encoded (off the caller's thread);
/// 2. the response **cache** answers a request with a ``CachePolicy`` when its entry is fresh
///    (nothing is adapted or sent), or makes the request conditional; a `304` answers from it;
/// 3. **adapt** it through the same interceptors, in the same order (URL filters, tokens, your
///    own, the signer last); then check it may be sent (http: or https: only);
/// 4. **transfer** it through the transport (`Transfer`), once there is room where the service
///    limits its requests in flight (the most important waiting request goes first): follow the
///    redirects the policy allows, inflate a content-encoded body as it arrives, enforce the size
///    limit and the idle timeout, report progress;
/// 5. **validate** the status against the request's acceptable codes, then the response against
///    the service's ``ResponseValidation`` unless the request opts out;
/// 6. **parse** the body with the request's parser chain (never on the main actor);
/// 7. on failure ask the interceptors whether to **retry**, and after which delay;
/// 8. **finish**: the result to an awaiting `send` and the handlers (queued on the main actor),
///    then the event monitors' `requestDidFinish`.
///
/// Stages 3 to 7 make one attempt; `RequestPipeline.StateMachine` decides what follows each of them (a
/// redirect's transfer, the next attempt, a download's restart from zero, an answer from the cache
/// after a `304`, a retry's wait, a stream's next connection, the finish), and
/// `attempts(recording:)` does the work. What
/// the request's kind does that the others do not (its limits, where the body goes, its header
/// fields, how the transfer starts, stages 5 and 6, its result) is its `strategy`'s: the pipeline
/// never asks which kind it runs.
final class RequestPipeline: Sendable {
    let request: AnyRequest
    let options: RequestOptions
    /// What the request's kind does that the others do not.
    let strategy: any RequestStrategy
    let settings: PipelineSettings
    /// Held so the service and its transport live until the request finishes.
    let service: Service
    let monitors: [any EventMonitor]
    /// Spans and metrics for this request, when something records them; made in the task that
    /// starts the request, so it has that task's trace context.
    let observer: (any RequestObserving)?
    private let interceptors: InterceptorChain

    /// The pipeline of `request`, sent with `options` as its kind's strategy says, by `service`
    /// with `settings`.
    init(request: AnyRequest, options: RequestOptions, settings: PipelineSettings, service: Service) {
        self.request = request
        self.options = options
        strategy = options.kind.strategy(options: options, settings: settings)
        self.settings = settings
        self.service = service
        monitors = settings.monitors
        observer = settings.observation?.observer(method: options.method)
        interceptors = settings.chain.including(options.interceptors, usesService: options.usesServiceInterceptors,
                                                skipping: options.skippedServiceDefaults)
    }

    /// The service's envelope, unless the request leaves it out.
    var envelope: ResponseEnvelope? {
        options.skippedServiceDefaults.contains(.envelope) ? nil : settings.envelope
    }

    /// The service's response validation, unless the request leaves it out.
    private var responseValidation: ResponseValidation? {
        options.skippedServiceDefaults.contains(.responseValidation) ? nil : settings.responseValidation
    }

    /// The statuses the request accepts: its own, within the service validation's.
    var acceptableStatusCodes: Range<Int> {
        guard let service = responseValidation?.acceptableStatusCodes else { return options.acceptableStatusCodes }
        return options.acceptableStatusCodes.clamped(to: service)
    }

    /// Runs the request until it finishes; returns what it finished with.
    @discardableResult
    func run() async -> AnyResult {
        let started = ContinuousClock.now
        observer?.requestDidStart()
        for monitor in monitors { monitor.requestDidStart(request.id, target: options.target.description, method: options.method) }
        var metrics = RequestMetrics(id: request.id, url: nil, method: options.method, statusCode: nil, attempts: 0,
                                     duration: .zero, bytesSent: 0, bytesReceived: 0, error: nil)
        strategy.begin(request)
        if let timeLimit {
            service.timeLimits.add(request.id, limit: timeLimit) { [request] in
                request.stop(with: .timeLimitExceeded(timeLimit))
            }
        }
        let result = await attempts(recording: &metrics)
        if timeLimit != nil { service.timeLimits.remove(request.id) }
        metrics.duration = started.duration(to: .now)
        let finished = request.finish(result, metrics: metrics)
        observer?.requestDidFinish(finished.metrics, stream: strategy.streamCounts)
        for monitor in monitors { monitor.requestDidFinish(finished.metrics) }
        return finished.result
    }

    /// Stages 1 and 3 alone: the request as its first attempt would send it (for cURL commands).
    func firstAttempt() async throws(NetworkError) -> OutgoingRequest {
        try await adapt(build(), context: context(attempt: 1))
    }

    /// The store this request sends and keeps cookies with, if any.
    private var cookieStore: (any CookieStoring)? {
        options.usesCookies ? settings.cookies : nil
    }

    private var isIdempotent: Bool {
        options.isIdempotent ?? options.method.isIdempotent
    }

    /// What the interceptors are told about `attempt`.
    private func context(attempt: Int, unprocessed: Int = 0, response: ResponseHead? = nil) -> InterceptorContext {
        InterceptorContext(requestID: request.id, attempt: attempt, unprocessedAttempts: unprocessed,
                           isIdempotent: isIdempotent, response: response,
                           environment: settings.environment, date: settings.dates.now)
    }

    /// The request's limits, else the service's for its kind (downloads to disk have their own,
    /// streams none but their own).
    private var timeLimit: Duration? {
        options.timeLimit ?? strategy.serviceTimeLimit(settings)
    }

    private var sizeLimit: Int64? {
        options.maxResponseBytes ?? strategy.serviceSizeLimit(settings)
    }

    /// Stage 1: the request's draft, prepared by every interceptor, encoded as an
    /// `OutgoingRequest`; a request built from one (or from a `URLRequest`) as it is.
    func build() throws(NetworkError) -> OutgoingRequest {
        if let custom = options.customRequest { return try custom.get() }
        let draft = try interceptors.prepare(options, context: context(attempt: 1))
        do {
            return try OutgoingRequestBuilder.build(draft, options: options, timeout: settings.timeout,
                                                    acceptEncoding: settings.acceptEncoding)
        } catch {
            throw NetworkError.wrap(error)
        }
    }

    /// Stages 1 to 7: builds the request, then performs the actions of a `RequestPipeline.StateMachine`,
    /// which decides what follows each stage (asking the cache, waiting for room in flight, each
    /// attempt's stages, a stream's next connection), until it says `finish`; returns that result.
    /// What was sent and received is added to `metrics`.
    ///
    /// Async frames come from the task's allocator, which mallocs a slab for each frame that does
    /// not fit what the task has left: so the loop stays in this function (one more frame on the
    /// way to the transport), and what it calls for its stages is kept out of line (`@inline(never)`:
    /// the stages, the state machine's events, parsing's sync part), so that their temporaries take
    /// no room in its frame.
    private func attempts(recording metrics: inout RequestMetrics) async -> AnyResult {
        var prepared: OutgoingRequest
        do {
            prepared = try build()                                                                    // 1. build
        } catch {
            return .failure(error)
        }
        observer?.requestDidBuild(prepared.url)
        let upload: UploadFile?
        do {
            upload = try UploadFile.make(for: options.body, builtBody: prepared.bodyData,             //    a body from disk
                                         encoding: options.bodyEncoding)
        } catch {
            return .failure(error)
        }
        defer { upload?.removeIfTemporary() }
        if let upload { prepared.body = .file(upload.url) }
        var cache = options.cache.flatMap { cacheLookup(for: prepared, policy: $0) }
        defer { cache?.finish() }
        let body = strategy.body(accepting: acceptableStatusCodes)   // in every transfer
        var machine = StateMachine(partialFile: strategy.partialFile, looksUpCache: cache != nil,
                                   waitsForRoom: settings.inFlightLimits != nil,
                                   isIdempotent: isIdempotent, resendLimit: settings.unprocessedResendLimit,
                                   reconnection: strategy.reconnection)
        var adapted = prepared            // the current attempt's request, once adapted
        var outcome = TransferOutcome()   // the current attempt's last transfer
        var cookies: TransferCookies?     // what the current attempt's transfers carry of the service's cookies
        var holdsRoom = false             // whether the current attempt holds room in flight at its host
        var next = machine.start()
        while true {
            switch next {
            case .lookUpCache:                                                                        // 2. cache
                guard var lookup = cache else {
                    next = machine.cacheLookedUp(nil, canRevalidate: false)
                    continue
                }
                let answer = await answerFromCache(&lookup, recording: &metrics)
                cache = lookup
                next = machine.cacheLookedUp(answer, canRevalidate: lookup.canRevalidate)
            case .adapt(let attempt):                                                                 // 3. adapt
                do {
                    adapted = try await adaptAttempt(prepared, attempt: attempt, unprocessed: machine.unprocessedAttempts,
                                                     conditionalFields: cache?.conditionalFields ?? [:])
                } catch {
                    next = machine.adaptFailed(error)
                    continue
                }
                for monitor in monitors { monitor.request(request.id, didAdapt: adapted, attempt: attempt) }
                next = machine.adapted(stopRequested: isCancelled)
            case .waitForRoom:                                                                        // 4. room
                let entered = await enterRoom(for: adapted)
                holdsRoom = entered
                next = machine.roomFound(cancelled: !entered)
            case .send(let attempt):                                                                  //    transfer
                cookies = beginAttempt(adapted, attempt: attempt, recording: &metrics)
                outcome = await transfer(adapted, attempt: attempt, origin: adapted.url, body: body, cookies: &cookies,
                                         recording: &metrics)
                next = machine.transferred(&outcome, stopRequested: isCancelled, bodyCanBeSentAgain: adapted.body.canBeSent)
                if !next.followsRedirect { endAttempt(of: adapted, holdingRoom: &holdsRoom) }
            case .followRedirect(let redirect, let head, let attempt):                                //    a redirect
                for monitor in monitors { monitor.request(request.id, willFollowRedirect: head, to: redirect, attempt: attempt) }
                outcome = await transfer(redirect, attempt: attempt, origin: adapted.url, isRedirect: true, body: body,
                                         cookies: &cookies, recording: &metrics)
                next = machine.transferred(&outcome, stopRequested: isCancelled, bodyCanBeSentAgain: adapted.body.canBeSent)
                if !next.followsRedirect { endAttempt(of: adapted, holdingRoom: &holdsRoom) }
            case .resend(let attempt, let error):                                                     //    unprocessed
                observer?.requestWillResend(error: error)
                for monitor in monitors { monitor.request(request.id, willResendUnprocessed: attempt, error: error) }
                outcome = TransferOutcome()
                next = machine.resendAnnounced()
            case .discardPartialFile:                                                                 //    from zero
                strategy.discardPartialFile()
                next = machine.partialFileDiscarded()
            case .revalidate(let head):                                                               // 2. a 304
                next = machine.revalidated(await revalidate(with: head, cache: &cache, recording: &metrics))
            case .respond:                                                                            // 5–6.
                next = machine.responded(await strategy.respond(to: outcome, in: self, cache: cache), stopRequested: isCancelled)
            case .askInterceptors(let attempt, let error):                                            // 7. retry?
                let failed = context(attempt: attempt, unprocessed: machine.unprocessedAttempts, response: outcome.head)
                next = machine.interceptorsDecided(await interceptors.retryDecision(adapted, error: error, context: failed))
            case .backOff(let delay, let attempt, let error):
                observer?.requestWillRetry(after: delay, error: error)
                for monitor in monitors { monitor.request(request.id, willRetryAfter: delay, attempt: attempt, error: error) }
                outcome = TransferOutcome()   // the failed answer is not kept through the wait
                do {
                    try await backOff(delay)
                    next = machine.backedOff(cancelled: false)
                } catch {
                    next = machine.backedOff(cancelled: true)
                }
            case .endConnection(let result):                                                          //    a stream's end
                let (end, serverDelay) = strategy.connectionEnd(after: result, request: request)
                next = machine.connectionEnded(end, serverDelay: serverDelay)
            case .waitToReconnect(let delay):                                                         //    reconnect
                do {
                    try await backOff(delay)
                    next = machine.waitedToReconnect(cancelled: false)
                } catch {
                    next = machine.waitedToReconnect(cancelled: true)
                }
            case .finish(let result):                                                                 // 8. finish
                return strategy.finalResult(result)
            }
        }
    }

    /// Stage 3: every interceptor in order (the signer last); a thrown error fails the request
    /// before anything is sent.
    private func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws(NetworkError) -> OutgoingRequest {
        let adapted = try await interceptors.adapt(request, context: context)
        // The one check of what may be sent, after the interceptors (which may change the
        // target), in the kit's words and the same for every transport.
        if let reason = adapted.head.unsendableReason { throw .invalidURL(reason) }
        return adapted
    }

    /// Stage 4 for one attempt: counts it and tells the observer and the monitors; returns the
    /// cookies its transfers carry, if the request uses the service's store.
    @inline(never)
    private func beginAttempt(_ adapted: OutgoingRequest, attempt: Int, recording metrics: inout RequestMetrics) -> TransferCookies? {
        observer?.attemptWillSend(adapted)
        metrics.attempts = request.beginAttempt()
        metrics.url = adapted.url
        for monitor in monitors { monitor.request(request.id, didSend: adapted, attempt: attempt) }
        return cookieStore.map { TransferCookies(store: $0) }
    }

    /// Stage 4, one transfer of attempt `attempt`, first sent to `origin`: `outgoing` is the
    /// attempt's request, or a redirect's (`isRedirect`: the observer hears it as a transfer of its own),
    /// with the store's cookies for its URL; the transport sends it, and what it moved is added to
    /// `metrics`.
    @inline(never)
    private func transfer(_ outgoing: OutgoingRequest, attempt: Int, origin: URL?, isRedirect: Bool = false, body: Transfer.Body,
                          cookies: inout TransferCookies?, recording metrics: inout RequestMetrics) async -> TransferOutcome {
        var next = outgoing
        if var prepared = cookies {
            next = prepared.prepare(next)
            cookies = prepared
        }
        if isRedirect { observer?.transferWillStart(&next) }   // the first's, before the interceptors (`adaptAttempt`)
        let setup = Transfer.Setup(attempt: attempt, monitors: monitors,
                                   redirects: options.redirectPolicy ?? settings.redirectPolicy,
                                   origin: origin, sizeLimit: sizeLimit, decompressionLimit: strategy.decompressionLimit(settings),
                                   transportDecodes: service.transport.decodesContentEncoding, body: body,
                                   envelope: envelope, jsonDecoder: settings.jsonDecoder,
                                   transportPausesReading: service.transport.pausesReading,
                                   idleWatch: service.idleWatch, cookies: cookieStore)
        let outcome = await send(next, setup: setup)
        observer?.transferDidEnd(head: outcome.head ?? outcome.redirectHead, error: outcome.error)
        metrics.bytesSent += outcome.bytesSent
        metrics.bytesReceived += outcome.bytesReceived
        metrics.statusCode = outcome.head?.status.code ?? metrics.statusCode
        metrics.httpVersion = outcome.head?.httpVersion ?? metrics.httpVersion
        return outcome
    }

    /// The end of an attempt's transfers: the room it held in flight given back, its span ended.
    @inline(never)
    private func endAttempt(of adapted: OutgoingRequest, holdingRoom holdsRoom: inout Bool) {
        if holdsRoom {
            service.inFlight.leave(host: adapted.head.host)
            holdsRoom = false
        }
        observer?.attemptDidEnd()
    }

    /// One transfer: the kit's checks that hold for every transport, then the transport. A body
    /// made once that was read already (a `307` or `308` asking for it again) is not sent.
    private func send(_ outgoing: OutgoingRequest, setup: Transfer.Setup) async -> TransferOutcome {
        guard outgoing.body.canBeSent else { return TransferOutcome(error: .requestBodyStream(.alreadySent)) }
        return await withCheckedContinuation { continuation in
            let transfer = Transfer(request: request, sending: outgoing, setup: setup, continuation: continuation)
            setup.idleWatch.add(transfer)
            let task = strategy.start(outgoing, on: service.transport, priority: options.priority, events: transfer)
            transfer.attach(task)
            request.attach(.transfer(task))
        }
    }

    /// Stage 3 for one attempt: the header fields of this attempt (`conditionalFields` (a stale cache
    /// entry's validators) where the request has none of its own, then its kind's: those that resume
    /// what a download left on disk, a reconnecting stream's `Last-Event-ID`, a WebSocket's
    /// subprotocols), then `adapt`, so the interceptors and the signer see every header that is sent.
    private func adaptAttempt(_ prepared: OutgoingRequest, attempt: Int, unprocessed: Int,
                              conditionalFields: HTTPFields) async throws(NetworkError) -> OutgoingRequest {
        var attemptRequest = prepared
        do {
            for field in conditionalFields where attemptRequest.head.headerFields[field.name] == nil {
                attemptRequest.head.headerFields[field.name] = field.value
            }
            try strategy.prepare(&attemptRequest)
        } catch {
            observer?.transferDidEnd(head: nil, error: error)
            throw error
        }
        observer?.transferWillStart(&attemptRequest)   // before the interceptors, so a signer signs what it adds
        do {
            return try await adapt(attemptRequest, context: context(attempt: attempt, unprocessed: unprocessed))
        } catch {
            observer?.transferDidEnd(head: nil, error: error)
            throw error
        }
    }

    /// Stage 4's wait for room at the host of `adapted` where the service limits its requests in
    /// flight: true once the attempt holds room there, false when the request was stopped while it
    /// waited (it holds none then).
    @inline(never)
    private func enterRoom(for adapted: OutgoingRequest) async -> Bool {
        guard let limits = settings.inFlightLimits else { return true }
        guard await waitForRoom(host: adapted.head.host, limits: limits) else {
            observer?.transferDidEnd(head: nil, error: .cancelled)
            return false
        }
        return true
    }

    /// The head of the answer a transfer ended with, for stages 5 and 6: its failure, or a
    /// `.badServerResponse` when it ended without a response, is thrown.
    func answerHead(of outcome: TransferOutcome) throws(NetworkError) -> ResponseHead {
        if let error = outcome.error { throw error }
        guard let head = outcome.head else {
            throw .transport(TransportError(.badServerResponse, detail: "the transfer ended without a response"))
        }
        return head
    }

    /// Stage 5 for an answer in hand, the same whether it came from the network, the cache or a
    /// `304` that refreshed a cache entry: the status against the request's acceptable codes,
    /// then the service's validation unless the request leaves it out; the answer comes back with
    /// the envelope the request's parsers read (the service's, unless the request leaves it out)
    /// and the service's JSON decoder.
    /// `checksBody` is false for a download's file, whose body is on disk.
    func accept(_ answer: Response, checksBody: Bool = true) -> Result<Response, NetworkError> {
        guard options.acceptableStatusCodes.contains(answer.status.code) else {
            return .failure(.httpStatus(code: answer.status.code, body: answer.data, headerFields: answer.headerFields))
        }
        var response = answer
        response.envelope = envelope
        response.jsonDecoder = settings.jsonDecoder
        response.notes = ParseNotes()
        do {
            try responseValidation?.validate(response, checksBody: checksBody && options.method != .head)
        } catch {
            return .failure(error)
        }
        return .success(response)
    }

    /// Stage 6, on the pipeline's task for light parsers of small bodies, otherwise on
    /// `ParsingQueue.shared`: never on the main actor.
    func parse(_ response: Response) async -> AnyResult {
        let notes = response.notes ?? ParseNotes()
        let parser = request.anyParser
        let started = monitors.isEmpty ? nil : ContinuousClock.now
        let result: AnyResult
        if parser.isLightweight && response.data.count <= ParsingQueue.inlineBodyLimit {
            result = Self.parsed(response, notes: notes, by: parser)                                // 6. parse
        } else {
            result = await withCheckedContinuation { continuation in
                ParsingQueue.shared.async { continuation.resume(returning: Self.parsed(response, notes: notes, by: parser)) }
            }
        }
        didParse(result, notes: notes, since: started)
        return result
    }

    /// `response` with `notes`, parsed by `parser`.
    @inline(never)
    private static func parsed(_ response: Response, notes: ParseNotes, by parser: any ResponseParser) -> AnyResult {
        var noted = response
        noted.notes = notes
        return parser.parseAnyResult(noted)
    }

    /// After stage 6: the business status to the request, and to the monitors how long parsing
    /// took since `started`.
    @inline(never)
    private func didParse(_ result: AnyResult, notes: ParseNotes, since started: ContinuousClock.Instant?) {
        if case .success = result { request.didRead(notes.businessStatus) }
        if let started {
            let duration = started.duration(to: .now)
            var succeeded = false
            if case .success = result { succeeded = true }
            for monitor in monitors { monitor.request(request.id, didParseIn: duration, succeeded: succeeded) }
        }
    }

    /// Stage 4's wait for room where the service limits its requests in flight: false when the
    /// request was stopped while it waited (it holds no place then). Like a retry's wait, the
    /// wait runs in a task of its own that `Request.cancel()` can cancel.
    private func waitForRoom(host: String, limits: InFlightLimits.Limits) async -> Bool {
        let gate = service.inFlight, id = request.id
        // In line from here: requests of one priority go in the order they reach this line.
        if gate.enter(id, host: host, priority: options.priority, limits: limits) { return true }
        observer?.waitingDidChange(true, host: host)
        defer { observer?.waitingDidChange(false, host: host) }
        let wait = Task { if await !gate.waitForTurn(id, host: host) { throw CancellationError() } }
        request.attach(.wait(wait))
        do {
            try await withTaskCancellationHandler { try await wait.value } onCancel: { wait.cancel() }
            return true
        } catch {
            return false
        }
    }

    /// The pipeline may run in the caller's task (`Service.send`), so the wait before a retry
    /// runs in a task of its own that `Request.cancel()` can cancel.
    @inline(never)
    func backOff(_ delay: Duration) async throws {
        let clock = settings.clock
        let wait = Task { try await Self.sleep(on: clock, for: delay) }
        request.attach(.wait(wait))
        try await withTaskCancellationHandler { try await wait.value } onCancel: { wait.cancel() }
    }

    var isCancelled: Bool {
        Task.isCancelled || request.isStoppedOrFinished
    }

    static func sleep<C: Clock>(on clock: C, for delay: Duration) async throws where C.Duration == Duration {
        guard delay > .zero else { return try Task.checkCancellation() }
        try await clock.sleep(until: clock.now.advanced(by: delay), tolerance: nil)
    }
}
