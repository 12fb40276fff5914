import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of an attempt, as the kit sees it above the transport: hears the transport's
/// events, keeps the head and the body (in memory, or in the download's file), inflates a
/// content-encoded body the transport left as sent, follows the redirect policy's choice,
/// enforces the size limit and the idle timeout, reports progress to the request and the head
/// to the monitors, and hands the outcome to the waiting pipeline when the transfer ends.
/// The rules live in `Transfer.StateMachine` (Transfer+StateMachine.swift). This class keeps the
/// machine and the transport's task behind one lock and has one function per family of events
/// (`head`, `body`, `control`, `complete`): each takes the lock, feeds the event to the machine,
/// and carries out the action it returns, outside the lock.
final class Transfer: TransportEvents {
    /// What the transfer needs besides its request: the same for every transfer of an attempt.
    struct Setup: Sendable {
        let attempt: Int
        let monitors: [any EventMonitor]
        let redirects: RedirectPolicy
        /// Where the attempt was first sent, to tell redirects to another origin.
        let origin: URL?
        let sizeLimit: Int64?
        /// The most bytes a content-encoded body may inflate to.
        let decompressionLimit: Int64
        /// True when the transport inflates content-encoded bodies itself.
        let transportDecodes: Bool
        /// Where the body of an accepted answer goes, as the request's kind says.
        let body: Body
        /// The service's envelope, for a stream parser's `begin`.
        let envelope: ResponseEnvelope?
        /// The service's JSON decoder, for a stream parser's `begin`.
        let jsonDecoder: JSONDecoder?
        /// True when the transport waits for a stream's consumers before reading on.
        let transportPausesReading: Bool
        /// Watches the transfer's idle time while it runs, if its request has an idle timeout.
        let idleWatch: IdleWatch
        /// The store that keeps the cookies each head sets, if the request uses one.
        let cookies: (any CookieStoring)?

        /// Where an accepted answer's body goes, for the state machine.
        var destination: StateMachine.Destination {
            switch body {
            case .memory: .memory
            case .file: .file
            case .stream(_, let accepting): .stream(accepting: accepting)
            }
        }

        /// The sink of a stream's body; nil for the other kinds.
        var sink: (any StreamSinking)? {
            guard case .stream(let sink, _) = body else { return nil }
            return sink
        }
    }

    /// Where the body of an accepted answer goes.
    enum Body {
        /// Into memory, for the parser once it has all arrived.
        case memory
        /// Into a download's file, as it arrives.
        case file(PartialDownload)
        /// To a stream's parser and consumers as it arrives, for the statuses in `accepting`.
        case stream(sink: any StreamSinking, accepting: Range<Int>)
    }

    private struct Locked {
        var state: StateMachine
        /// The transport's task, once handed back, for the machine's `cancelTransfer`.
        var task: (any TransportTask)?
        var continuation: CheckedContinuation<TransferOutcome, Never>?
    }

    /// The request's idle timeout, fixed when the transfer is made: `IdleWatch` watches only a
    /// transfer that has one, and reads this without a lock.
    let idleTimeout: IdleTimeout?
    private let request: AnyRequest
    /// What this transfer sends (a redirect's proposal is made from it).
    private let sent: OutgoingRequest
    private let setup: Setup
    private let locked: Protected<Locked>

    init(request: AnyRequest, sending sent: OutgoingRequest, setup: Setup,
         continuation: CheckedContinuation<TransferOutcome, Never>) {
        self.request = request
        self.sent = sent
        self.setup = setup
        let idleTimeout = IdleTimeout(sent)
        self.idleTimeout = idleTimeout
        let state = StateMachine(sizeLimit: setup.sizeLimit, decompressionLimit: setup.decompressionLimit,
                                 destination: setup.destination, transportDecodes: setup.transportDecodes,
                                 idleTimeout: idleTimeout, now: .now)
        locked = Protected(Locked(state: state, continuation: continuation))
    }

    // MARK: The transport's events

    /// Keeps the transport's task so the transfer can stop it itself (a download that must
    /// restart, a redirect's long body, a failure, the idle timeout).
    func attach(_ task: any TransportTask) {
        control(.attached, attaching: task)
    }

    /// Fails the transfer with a `.timedOut` failure if nothing moved for its idle timeout by `now`.
    func checkIdle(now: ContinuousClock.Instant) {
        control(.idleCheck(now: now))
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        control(.sent(bytes: bytes, now: .now))
        request.didSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        let setup = self.setup
        if let store = setup.cookies, case let cookies = head.headerFields[values: .setCookie], !cookies.isEmpty,
           let url = sent.url {
            store.store(setCookieFields: cookies, from: url)
        }
        // The policy may be the app's closure: it runs here, outside the lock.
        let redirect = RedirectProposal.next(after: sent, head: head).flatMap {
            setup.redirects.next($0, after: head, original: setup.origin)
        }
        self.head(.head(head, redirect: redirect, now: .now))
    }

    func transportDidReceive(chunk: Data) {
        body(.chunk(chunk, now: .now))
    }

    /// A stream's backpressure: returns once its consumers have room (the wait is not idle time).
    func transportReadyForMoreBody() async {
        guard let sink = setup.sink, !sink.hasRoom else { return }
        control(.paused(true, now: .now))
        await sink.waitForRoom()
        control(.paused(false, now: .now))
    }

    func transportDidComplete(failure: NetworkError?) {
        complete(.transportCompleted(failure: failure))
    }

    // MARK: One function per family of events

    /// Feeds a head event and carries out its action: the head reported (to the request and the
    /// monitors) unless it is a redirect to follow, then the download's file or the stream begun,
    /// or the request stopped over its limit.
    private func head(_ event: StateMachine.HeadEvent) {
        let (action, task) = locked.withLock { locked in
            let action = locked.state.receive(event)
            return (action, action == .cancelTransfer ? locked.task : nil)
        }
        let head: ResponseHead? = if case .head(let head, _, _) = event { head } else { nil }
        if let head, action != .followRedirect {
            request.didReceive(head: head)
            for monitor in setup.monitors { monitor.request(request.id, didReceive: head, attempt: setup.attempt) }
        }
        switch action {
        case .beginFile:
            guard case .file(let file) = setup.body, let head else { return }
            let start: PartialDownload.Start
            do {
                start = try file.begin(head)
            } catch {
                return stop(error)
            }
            self.head(.fileBegan(start))
        case .beginStream:
            guard let sink = setup.sink, let head else { return }
            var response = Response(head, data: Data())
            response.envelope = setup.envelope
            response.jsonDecoder = setup.jsonDecoder
            do {
                try sink.begin(response)
            } catch {
                control(.failed(error))
            }
        case .tooLarge(let limit):
            request.stop(with: .responseTooLarge(limit: limit))
        case .writeFile(let total):
            request.expectBody(total: total)
        case .cancelTransfer:
            task?.cancel()
        case .followRedirect, .receive, .keepInMemory:
            break
        }
    }

    /// Feeds a body event and carries out its action; returns false once the body is refused
    /// (an inflater then stops: a bomb inflates far more than it sends).
    @discardableResult
    private func body(_ event: StateMachine.BodyEvent) -> Bool {
        let (action, task) = locked.withLock { locked in
            let action = locked.state.receive(event)
            return (action, action == .cancelTransfer ? locked.task : nil)
        }
        switch action {
        case .inflate(let inflater):
            guard case .chunk(let chunk, _) = event else { return false }
            do {
                try inflater.inflate(chunk) { piece in
                    guard body(.inflated(piece, now: .now)) else { throw CancellationError() }
                }
                return true
            } catch is CancellationError {
                return false
            } catch {
                control(.failed(Self.badEncoding(error)))
                return false
            }
        case .kept(let received), .written(let received):
            request.didReceive(bodyBytes: received)
            return true
        case .writeToFile:
            guard case .file(let file) = setup.body, let piece = event.piece else { return false }
            // Written on the transport's context, as bytes arrive: nothing accumulates in memory.
            do {
                return body(.wroteToFile(count: piece.count, fileLength: try file.write(piece)))
            } catch {
                stop(error)
                return false
            }
        case .feedStream(let received):
            request.didReceive(bodyBytes: received)
            guard let sink = setup.sink, let piece = event.piece else { return false }
            if let error = sink.feed(piece, request: request, canWait: setup.transportPausesReading) {
                control(.failed(error))
                return false
            }
            return true
        case .dropped:
            return true
        case .overLimit(let limit):
            request.stop(with: .responseTooLarge(limit: limit))
            return false
        case .cancelTransfer:
            task?.cancel()
            return false
        }
    }

    /// Feeds a control event (keeping `task` first, when the transport hands it back) and
    /// cancels the task when the machine says so.
    private func control(_ event: StateMachine.ControlEvent, attaching task: (any TransportTask)? = nil) {
        let toCancel = locked.withLock { locked -> (any TransportTask)? in
            if let task { locked.task = task }
            return locked.state.receive(event) == .cancelTransfer ? locked.task : nil
        }
        toCancel?.cancel()
    }

    /// Feeds a completion event and carries out its action: the inflater's last check, or the
    /// outcome handed to the pipeline (the task and the continuation let go).
    private func complete(_ event: StateMachine.CompletionEvent) {
        let (action, continuation) = locked.withLock { locked in
            let action = locked.state.receive(event)
            guard case .hand = action else { return (action, CheckedContinuation<TransferOutcome, Never>?.none) }
            defer { locked.continuation = nil; locked.task = nil }
            return (action, locked.continuation)
        }
        switch action {
        case .finishInflating(let inflater):
            var failure: NetworkError?
            do {
                try inflater.finish()
            } catch {
                failure = Self.badEncoding(error)
            }
            complete(.inflaterFinished(failure: failure))
        case .hand(let outcome):
            setup.idleWatch.remove(self)
            continuation?.resume(returning: outcome)
        }
    }

    // MARK: Helpers

    /// The failure of a content-encoded body the inflater refused (corrupt, or cut short).
    private static func badEncoding(_ error: any Error) -> NetworkError {
        .transport(TransportError(.badContentEncoding, transportText: "\(error)"))
    }

    /// Stops the transfer for a file error: the request finishes with `error`, whatever the
    /// transport reports after its cancellation.
    private func stop(_ error: NetworkError) {
        control(.stopped)
        request.stop(with: error)
    }
}

/// The hook the pipeline gives a cookie jar (``CookieJar`` fills it): asked for the `Cookie`
/// header of each transfer's URL, told the `Set-Cookie` fields of each head that arrives.
protocol CookieStoring: Sendable {
    /// True when no cookie is held: a transfer then has none to send, and its URL is not read.
    var isEmpty: Bool { get }
    /// The `Cookie` header's value for a transfer to `url`, or nil when no cookie goes with it.
    func cookieHeader(for url: URL) -> String?
    /// Keeps what the `Set-Cookie` fields of the answer to a transfer to `url` ask.
    func store(setCookieFields: [String], from url: URL)
}

/// A service's cookies at work on one request: before each transfer of an attempt (the first
/// send and every redirect) it adds the cookies the store holds for that transfer's URL to the
/// `Cookie` header (`Transfer` stores each head's `Set-Cookie` fields). A `Cookie` header the
/// request set itself is kept, in front of the store's cookies, as long as the redirect policy
/// keeps it.
struct TransferCookies: Sendable {
    let store: any CookieStoring
    /// The request's own `Cookie` header, without the store's.
    private var own: String?
    /// True once a transfer went out with the store's cookies in its `Cookie` header.
    private var addedStoredCookies = false

    /// The cookies of a request whose transfers go out through `prepare`.
    init(store: any CookieStoring) {
        self.store = store
    }

    /// `request` with the store's cookies for its URL. `request` is the first transfer, or a
    /// redirect made from the previous one (which carries that one's `Cookie` header unless the
    /// redirect policy dropped it for another origin). While the store is empty and no transfer
    /// carried its cookies, `request` goes out as it is, its headers not even read.
    mutating func prepare(_ request: OutgoingRequest) -> OutgoingRequest {
        if !addedStoredCookies {
            if store.isEmpty { return request }
            own = request.head.headerFields[.cookie]
        } else if request.head.headerFields[.cookie] == nil {
            own = nil
        }
        var prepared = request
        let stored = request.url.flatMap { store.cookieHeader(for: $0) }
        addedStoredCookies = stored != nil
        let value = [own, stored].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ")
        prepared.head.headerFields[.cookie] = value.isEmpty ? nil : value
        return prepared
    }
}
