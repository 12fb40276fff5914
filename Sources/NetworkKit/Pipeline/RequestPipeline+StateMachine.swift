import Foundation

extension RequestPipeline {
    /// The attempt loop's decisions as a state machine: what each stage of an attempt came to comes
    /// in as an event, the next stage comes back as an action, and the loop ends with one action,
    /// `finish`. It holds no lock and does no I/O or async work, so its rules (which attempt this is,
    /// the redirects an attempt follows, the one restart of a download, a `304`, retries, stops) are
    /// tested as tables of phase × event
    /// (`RequestPipelineStateMachineTests`). `RequestPipeline.attempts(recording:)` performs the actions.
    ///
    ///     ready ──start──▶ adapting(1), or lookingUpCache for a request the cache may answer
    ///     lookingUpCache ──cacheLookedUp: an answer──▶ finished; none──▶ adapting(1)
    ///     adapting(n) ──adapted──▶ transferring(n), or waitingForRoom(n) where the service limits
    ///         the requests in flight ──roomFound──▶ transferring(n) | finished (cancelled)
    ///     transferring(n) ──transferred──▶ responding(n) ──a success──▶ finished
    ///     transferring(n) ──a redirect the policy follows──▶ transferring(n) (a new transfer), up to
    ///         `maxRedirects`; past them the attempt fails with `RedirectProposal.tooManyRedirects`
    ///     transferring(n) ──a download's answer cannot continue its file──▶ restartingDownload(n)
    ///     restartingDownload(n) ──partialFileDiscarded──▶ adapting(n + 1) the first time, finished after
    ///     transferring(n) ──a 304, with a cache entry──▶ revalidating(n) ──revalidated──▶ finished
    ///     transferring(n) ──a failure the server did not process──▶ resending(n) ──resendAnnounced──▶ adapting(n + 1)
    ///     responding(n) ──a failure, not stopped──▶ askingInterceptors(n) ──retry──▶ backingOff(n)
    ///     backingOff(n) ──backedOff──▶ adapting(n + 1)
    ///     a stop, a failed adapt, no retry, a cancelled wait ──▶ finished
    ///     any failure once the body cannot be sent again (a stream made once, read) ──▶ finished
    ///     with a reconnection policy (a stream), each end ──▶ endingConnection(n) ──connectionEnded──▶
    ///         waitingToReconnect(n) ──waitedToReconnect──▶ adapting(n + 1) | finished
    ///
    /// An event the phase does not wait for is a bug in the driver, never the caller's error: it
    /// stops a debug build (`assertionFailure`) unless the machine was made to record it
    /// (`assertsOnBrokenTransition: false`, as the tables test it), and ``brokenTransition``
    /// names it. The loop ends all the same: with the result it finished with, if it had; else
    /// cancelled, as a request the kit gave up on.
    struct StateMachine {
        /// Where the request's attempts are.
        enum Phase {
            /// Built, no attempt begun.
            case ready
            /// The response cache is asked whether it answers.
            case lookingUpCache
            /// Attempt `attempt` goes through the interceptors and the signer.
            case adapting(attempt: Int)
            /// Attempt `attempt` waits for room where the service limits its requests in flight.
            case waitingForRoom(attempt: Int)
            /// Attempt `attempt` is with the transport.
            case transferring(attempt: Int)
            /// Attempt `attempt` failed before the server processed it (``ServerProcessing``): it is
            /// sent again at once, uncounted by the retry policy.
            case resending(attempt: Int)
            /// A download's answer could not continue its partial file (`reason`): the file is being
            /// removed so the request starts again from zero.
            case restartingDownload(attempt: Int, reason: String)
            /// A `304` to a conditional request: the cache entry it refreshed is being parsed.
            case revalidating(attempt: Int)
            /// Attempt `attempt`'s answer is being validated and parsed.
            case responding(attempt: Int)
            /// Attempt `attempt` failed with `error`: the interceptors decide whether to retry.
            case askingInterceptors(attempt: Int, error: NetworkError)
            /// Waiting before the attempt after `attempt`.
            case backingOff(attempt: Int)
            /// A stream's connection, attempt `attempt`, ended with `result`: how it ended decides
            /// whether another connects.
            case endingConnection(attempt: Int, result: AnyResult)
            /// Waiting before a stream's next connection, the attempt after `attempt`.
            case waitingToReconnect(attempt: Int)
            /// The loop is over: the request finishes with `result`.
            case finished(AnyResult)
        }

        /// What the pipeline does next.
        enum Action {
            /// Ask the response cache whether it answers (delivering a cache-then-network reply
            /// on the way), then report `cacheLookedUp`.
            case lookUpCache
            /// Wait (cancellably) for room where the service limits its requests in flight, then
            /// report `roomFound`; the room is left once the attempt's transfer ended.
            case waitForRoom(attempt: Int)
            /// Adapt the built request for attempt `attempt` (interceptors, signer, resume and
            /// conditional headers), then report `adapted` or `adaptFailed`.
            case adapt(attempt: Int)
            /// Send the adapted request, then report `transferred`.
            case send(attempt: Int)
            /// Tell the monitors, then send `redirect` (the redirect policy's choice after the
            /// redirect's `head`) as a new transfer of attempt `attempt`, then report `transferred`.
            indirect case followRedirect(OutgoingRequest, after: ResponseHead, attempt: Int)
            /// Remove the download's partial file, then report `partialFileDiscarded`.
            case discardPartialFile
            /// Tell the monitors attempt `attempt` failed with `error` before the server processed it
            /// and is sent again, then report `resendAnnounced`.
            case resend(attempt: Int, error: NetworkError)
            /// Answer from the cache entry `head` (a `304`) refreshes, then report `revalidated`.
            case revalidate(ResponseHead)
            /// Validate and parse the transfer's answer, then report `responded`.
            case respond
            /// Ask the interceptors whether attempt `attempt`, failed with `error`, is retried; then
            /// report `interceptorsDecided`.
            case askInterceptors(attempt: Int, error: NetworkError)
            /// Tell the monitors attempt `attempt` failed with `error` and is retried, wait `delay`
            /// (cancellably), then report `backedOff`.
            case backOff(delay: Duration, attempt: Int, error: NetworkError)
            /// A stream's connection ended with this result: report how it ended, for its
            /// reconnection (`connectionEnded`).
            case endConnection(AnyResult)
            /// Tell nobody, wait `delay` (cancellably) before the stream connects again, then report
            /// `waitedToReconnect`.
            case waitToReconnect(delay: Duration)
            /// The end: the request finishes with this result.
            case finish(AnyResult)
        }

        /// Where the attempts are: `finished` from the first `finish` on, for good.
        private(set) var phase: Phase = .ready
        /// A download's partial file; nil for a request whose body stays in memory.
        let partialFile: URL?
        /// Whether a cache entry answers a `304`: as made, or as the cache lookup found.
        private(set) var canRevalidate: Bool
        /// Whether the response cache is asked first.
        let looksUpCache: Bool
        /// Whether each attempt waits for room where the service limits its requests in flight.
        let waitsForRoom: Bool
        /// Whether the request may be sent twice without harm (it decides whether an attempt whose
        /// connection closed before any answer is sent again).
        let isIdempotent: Bool
        /// How many attempts the server did not process may be sent again.
        let resendLimit: Int
        /// As many redirects as one attempt follows.
        let maxRedirects: Int
        /// The redirects the current attempt followed.
        private(set) var redirectsFollowed = 0
        /// Whether the download's one restart from zero was used (by any attempt, retries included).
        private(set) var hasRestarted = false
        /// The attempts sent again because the server did not process them; the retry policy does
        /// not count them.
        private(set) var unprocessedAttempts = 0
        /// Set when a transfer read a body that cannot be made again (a ``RequestBodyStream`` made
        /// once): no attempt follows, and a failure stands as it is.
        private(set) var bodySpent = false
        /// A stream's reconnections, if the request connects again after each end.
        private var reconnection: Reconnection

        /// A stream's reconnection rules, boxed: a request that never connects again keeps one
        /// word of them in the pipeline's frame, where every request pays for its size.
        private enum Reconnection {
            case never
            indirect case after(StreamReconnector)
        }
        /// The first event that came in a phase that does not wait for it, and that phase.
        private(set) var brokenTransition: String?
        /// Whether a broken transition stops a debug build; false only where a test records it.
        let assertsOnBrokenTransition: Bool

        /// The attempts of a request that downloads to `partialFile` (nil when it does not), that a
        /// cache entry can answer after a `304` when `canRevalidate`, and that sends attempts the
        /// server did not process again up to `resendLimit` times (an attempt whose connection closed
        /// before any answer only when `isIdempotent`), and that connects again after each end as
        /// `reconnection` says (a stream's policy; nil never).
        /// The cache is asked first when `looksUpCache`; each attempt waits for room first when
        /// `waitsForRoom`, and follows at most `maxRedirects` redirects.
        init(partialFile: URL?, canRevalidate: Bool = false, looksUpCache: Bool = false, waitsForRoom: Bool = false,
             isIdempotent: Bool = true, resendLimit: Int = 0, maxRedirects: Int = RedirectProposal.maxRedirects,
             reconnection: StreamReconnection? = nil, assertsOnBrokenTransition: Bool = true) {
            self.assertsOnBrokenTransition = assertsOnBrokenTransition
            self.looksUpCache = looksUpCache
            self.waitsForRoom = waitsForRoom
            self.reconnection = reconnection.map { .after(StreamReconnector(policy: $0)) } ?? .never
            self.partialFile = partialFile
            self.canRevalidate = canRevalidate
            self.isIdempotent = isIdempotent
            self.resendLimit = resendLimit
            self.maxRedirects = maxRedirects
        }
    }
}

// MARK: - Events

/// The events. Each is kept out of line: inlined into the pipeline's loop, their temporaries
/// would take room in its async frame, which every request's task allocates (about 3 KB more).
extension RequestPipeline.StateMachine {
    /// The request is built and the cache did not answer: the first attempt begins, numbered
    /// after `previous` (a stream's reconnection continues its count).
    @inline(never)
    mutating func start(after previous: Int = 0) -> Action {
        guard case .ready = phase else { return unexpected("start") }
        if looksUpCache {
            phase = .lookingUpCache
            return .lookUpCache
        }
        return adapt(attempt: previous + 1)
    }

    /// The cache answered with `answer` (the request finishes with it, unretried), or did not
    /// (nil): the first attempt begins, and a `304` answers from the entry when `canRevalidate`.
    @inline(never)
    mutating func cacheLookedUp(_ answer: AnyResult?, canRevalidate: Bool) -> Action {
        guard case .lookingUpCache = phase else { return unexpected("cacheLookedUp") }
        if let answer { return settle(answer) }
        self.canRevalidate = canRevalidate
        return adapt(attempt: 1)
    }

    /// The attempt's request is adapted; `stopRequested` when the request was stopped meanwhile,
    /// and then nothing is sent.
    @inline(never)
    mutating func adapted(stopRequested: Bool) -> Action {
        guard case .adapting(let attempt) = phase else { return unexpected("adapted") }
        if stopRequested { return finish(.failure(.cancelled)) }
        if waitsForRoom {
            phase = .waitingForRoom(attempt: attempt)
            return .waitForRoom(attempt: attempt)
        }
        return send(attempt: attempt)
    }

    /// The wait for room ended: the attempt is sent, unless the wait was cancelled (the request
    /// was stopped meanwhile), which finishes the request cancelled.
    @inline(never)
    mutating func roomFound(cancelled: Bool) -> Action {
        guard case .waitingForRoom(let attempt) = phase else { return unexpected("roomFound") }
        if cancelled { return finish(.failure(.cancelled)) }
        return send(attempt: attempt)
    }

    /// Adapting failed (an interceptor, the signer, the URL check, the download's file): the
    /// request finishes with `error` and is not retried.
    @inline(never)
    mutating func adaptFailed(_ error: NetworkError) -> Action {
        guard case .adapting = phase else { return unexpected("adaptFailed") }
        return finish(.failure(error))
    }

    /// A transfer ended with `outcome`; `bodyCanBeSentAgain` is false when it read a body that
    /// cannot be made again. Unless the request was stopped: a redirect the policy follows is the
    /// attempt's next transfer, and past `maxRedirects` the outcome becomes the attempt's failure
    /// (`RedirectProposal.tooManyRedirects`). Unless the request was stopped or its body is spent:
    /// a download whose answer could not continue its partial file restarts; a failure the server
    /// did not process is sent again. A `304` answers from the cache entry; any other answer is
    /// validated and parsed.
    @inline(never)
    mutating func transferred(_ outcome: inout TransferOutcome, stopRequested: Bool, bodyCanBeSentAgain: Bool = true) -> Action {
        guard case .transferring(let attempt) = phase else { return unexpected("transferred") }
        if !bodyCanBeSentAgain { bodySpent = true }
        if let redirect = outcome.redirect, let head = outcome.redirectHead, !stopRequested {
            guard redirectsFollowed < maxRedirects else {
                outcome = TransferOutcome(bytesSent: outcome.bytesSent, error: RedirectProposal.tooManyRedirects)
                phase = .responding(attempt: attempt)
                return .respond
            }
            redirectsFollowed += 1
            return .followRedirect(redirect, after: head, attempt: attempt)
        }
        if let reason = outcome.restartReason, let partialFile, !stopRequested {
            if bodySpent { return finish(.failure(.download(DownloadError(.rangeMismatch(reason), file: partialFile)))) }
            phase = .restartingDownload(attempt: attempt, reason: reason)
            return .discardPartialFile
        }
        if !stopRequested, let error = unprocessedFailure(outcome) {
            unprocessedAttempts += 1
            phase = .resending(attempt: attempt)
            return .resend(attempt: attempt, error: error)
        }
        if canRevalidate, outcome.error == nil, let head = outcome.head, head.status == .notModified {
            phase = .revalidating(attempt: attempt)
            return .revalidate(head)
        }
        phase = .responding(attempt: attempt)
        return .respond
    }

    /// The monitors heard of the attempt sent again: it begins.
    @inline(never)
    mutating func resendAnnounced() -> Action {
        guard case .resending(let attempt) = phase else { return unexpected("resendAnnounced") }
        return adapt(attempt: attempt + 1)
    }

    /// The partial file is gone: the first time, the next attempt starts from zero; the second
    /// time, the request fails with `DownloadError.Reason.rangeMismatch`.
    @inline(never)
    mutating func partialFileDiscarded() -> Action {
        guard case .restartingDownload(let attempt, let reason) = phase, let partialFile else {
            return unexpected("partialFileDiscarded")
        }
        guard !hasRestarted else {
            return finish(.failure(.download(DownloadError(.rangeMismatch(reason), file: partialFile))))
        }
        hasRestarted = true
        return adapt(attempt: attempt + 1)
    }

    /// The refreshed cache entry's result finishes the request, unretried; nil (no entry to
    /// refresh) leaves the `304` to be validated like any answer.
    @inline(never)
    mutating func revalidated(_ result: AnyResult?) -> Action {
        guard case .revalidating(let attempt) = phase else { return unexpected("revalidated") }
        guard let result else {
            phase = .responding(attempt: attempt)
            return .respond
        }
        return finish(result)
    }

    /// The answer's result: a success, a cancellation, or any failure once the request was
    /// stopped or its body spent finishes the request; another failure goes to the interceptors.
    @inline(never)
    mutating func responded(_ result: AnyResult, stopRequested: Bool) -> Action {
        guard case .responding(let attempt) = phase else { return unexpected("responded") }
        guard case .failure(let error) = result, !error.isCancellation, !stopRequested, !bodySpent else { return finish(result) }
        phase = .askingInterceptors(attempt: attempt, error: error)
        return .askInterceptors(attempt: attempt, error: error)
    }

    /// The interceptors' decision: a retry waits its delay; otherwise the failure stands.
    @inline(never)
    mutating func interceptorsDecided(_ decision: RetryDecision) -> Action {
        guard case .askingInterceptors(let attempt, let error) = phase else { return unexpected("interceptorsDecided") }
        guard case .retry(let delay) = decision else { return finish(.failure(error)) }
        phase = .backingOff(attempt: attempt)
        return .backOff(delay: delay, attempt: attempt, error: error)
    }

    /// The wait before a retry ended: the next attempt begins, unless the wait was cancelled,
    /// which finishes the request cancelled.
    @inline(never)
    mutating func backedOff(cancelled: Bool) -> Action {
        guard case .backingOff(let attempt) = phase else { return unexpected("backedOff") }
        if cancelled { return finish(.failure(.cancelled)) }
        return adapt(attempt: attempt + 1)
    }

    /// How the stream's connection ended (`end`, with the server's last asked delay): the wait
    /// before the next connection, or the finish with the connection's result.
    @inline(never)
    mutating func connectionEnded(_ end: StreamReconnector.ConnectionEnd, serverDelay: Duration?) -> Action {
        guard case .endingConnection(let attempt, let result) = phase, case .after(var reconnector) = reconnection else {
            return unexpected("connectionEnded")
        }
        let delay = reconnector.next(after: end, serverDelay: serverDelay)
        reconnection = .after(reconnector)
        guard let delay else { return settle(result) }
        phase = .waitingToReconnect(attempt: attempt)
        return .waitToReconnect(delay: delay)
    }

    /// The wait before a stream's next connection ended: it begins, as a new attempt that may be
    /// resent, restarted and retried as the first was, unless the wait was cancelled.
    @inline(never)
    mutating func waitedToReconnect(cancelled: Bool) -> Action {
        guard case .waitingToReconnect(let attempt) = phase else { return unexpected("waitedToReconnect") }
        if cancelled { return settle(.failure(.cancelled)) }
        unprocessedAttempts = 0
        hasRestarted = false
        bodySpent = false
        return adapt(attempt: attempt + 1)
    }

    /// The failure of an answerless transfer that is sent again, within the limit: one the server
    /// did not process, or (for an idempotent request) one whose connection closed before any
    /// answer.
    private func unprocessedFailure(_ outcome: TransferOutcome) -> NetworkError? {
        guard outcome.head == nil, let failure = outcome.error, unprocessedAttempts < resendLimit, !bodySpent else { return nil }
        switch failure.serverProcessing {
        case .notProcessed: return failure
        case .closedBeforeAnswer where isIdempotent: return failure
        default: return nil
        }
    }

    private mutating func adapt(attempt: Int) -> Action {
        phase = .adapting(attempt: attempt)
        return .adapt(attempt: attempt)
    }

    private mutating func send(attempt: Int) -> Action {
        phase = .transferring(attempt: attempt)
        redirectsFollowed = 0
        return .send(attempt: attempt)
    }

    /// The end of an attempt that no other follows: the finish, or, with a reconnection policy,
    /// the end of a connection, which `connectionEnded` decides on.
    private mutating func finish(_ result: AnyResult) -> Action {
        guard case .after = reconnection, let attempt = phase.attempt else { return settle(result) }
        phase = .endingConnection(attempt: attempt, result: result)
        return .endConnection(result)
    }

    /// The one way out of the loop: the phase keeps the result.
    private mutating func settle(_ result: AnyResult) -> Action {
        phase = .finished(result)
        return .finish(result)
    }

    /// An event the phase does not wait for: a bug in the driver (see the type's documentation).
    private mutating func unexpected(_ event: StaticString) -> Action {
        let transition = "\(event) while \(phase.name)"
        if brokenTransition == nil { brokenTransition = transition }
        if assertsOnBrokenTransition { assertionFailure("the attempt loop got \(transition)") }
        if case .finished(let result) = phase { return .finish(result) }
        return settle(.failure(.cancelled))
    }
}

extension RequestPipeline.StateMachine.Phase {
    /// The phase's name, without its values.
    var name: String {
        switch self {
        case .ready: "ready"
        case .lookingUpCache: "lookingUpCache"
        case .waitingForRoom: "waitingForRoom"
        case .adapting: "adapting"
        case .transferring: "transferring"
        case .resending: "resending"
        case .restartingDownload: "restartingDownload"
        case .revalidating: "revalidating"
        case .responding: "responding"
        case .askingInterceptors: "askingInterceptors"
        case .backingOff: "backingOff"
        case .endingConnection: "endingConnection"
        case .waitingToReconnect: "waitingToReconnect"
        case .finished: "finished"
        }
    }

    /// The attempt the phase is at; nil before the first and once finished.
    var attempt: Int? {
        switch self {
        case .ready, .lookingUpCache, .finished: nil
        case .adapting(let attempt), .waitingForRoom(let attempt), .transferring(let attempt), .resending(let attempt), .restartingDownload(let attempt, _),
             .revalidating(let attempt), .responding(let attempt), .askingInterceptors(let attempt, _), .backingOff(let attempt),
             .endingConnection(let attempt, _), .waitingToReconnect(let attempt):
            attempt
        }
    }
}

extension RequestPipeline.StateMachine.Action {
    /// True for `followRedirect`: the attempt goes on with another transfer.
    var followsRedirect: Bool {
        if case .followRedirect = self { return true }
        return false
    }
}
