import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of an attempt, as the kit sees it above the transport: hears the transport's
/// events, keeps the head and the body (in memory, or in the download's file), inflates a
/// content-encoded body the transport left as sent, follows the redirect policy's choice,
/// enforces the size limit and the idle timeout, reports progress to the request and the head
/// to the monitors, and hands the outcome to the waiting pipeline when the transfer ends. The
/// rules live in `Transfer.StateMachine` (Transfer+StateMachine.swift); this class performs its actions.
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
        var continuation: CheckedContinuation<TransferOutcome, Never>?
        /// Inflates a content-encoded body the transport delivers as sent. Used only from the
        /// transport's events, which the transport contract calls one at a time.
        var inflater: StreamingInflater?
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
        locked = Protected(Locked(state: StateMachine(idleTimeout: idleTimeout, now: .now), continuation: continuation))
    }

    /// Keeps the transport's task so the transfer can stop it itself (a download that must
    /// restart, a redirect's long body, the idle timeout).
    func attach(_ task: any TransportTask) {
        if locked.withLock({ $0.state.attach(task) }) { task.cancel() }
    }

    /// Fails the transfer with a `.timedOut` failure if nothing moved for its idle timeout by `now`.
    func checkIdle(now: ContinuousClock.Instant) {
        let (timedOut, task) = locked.withLock { $0.state.checkIdle(now: now) }
        if timedOut { task?.cancel() }
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        locked.withLock { $0.state.sent(bytes: bytes, now: .now) }
        request.didSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        let setup = self.setup
        if let store = setup.cookies, case let cookies = head.headerFields[values: .setCookie], !cookies.isEmpty,
           let url = sent.url {
            store.store(setCookieFields: cookies, from: url)
        }
        let redirect = RedirectProposal.next(after: sent, head: head).flatMap {
            setup.redirects.next($0, after: head, original: setup.origin)
        }
        let action = locked.withLock { locked in
            let action = locked.state.receive(head: head, redirect: redirect, sizeLimit: setup.sizeLimit,
                                                 decompressionLimit: setup.decompressionLimit,
                                                 destination: setup.destination, now: .now)
            if action != .followRedirect, !setup.transportDecodes, let coding = head.contentCoding {
                locked.inflater = StreamingInflater(coding: coding)
            }
            return action
        }
        if action == .followRedirect { return }
        request.didReceive(head: head)
        for monitor in setup.monitors { monitor.request(request.id, didReceive: head, attempt: setup.attempt) }
        switch action {
        case .beginFile:
            if case .file(let file) = setup.body { beginFile(file, head: head) }
        case .beginStream:
            guard let sink = setup.sink else { break }
            var response = Response(head, data: Data())
            response.envelope = setup.envelope
            response.jsonDecoder = setup.jsonDecoder
            do {
                try sink.begin(response)
            } catch {
                fail(error)
            }
        case .tooLarge(let limit):
            request.stop(with: .responseTooLarge(limit: limit))
        case .receive, .followRedirect:
            break
        }
    }

    /// A download's head: open its file, or restart, or keep an error body in memory.
    private func beginFile(_ file: PartialDownload, head: ResponseHead) {
        let start: PartialDownload.Start
        do {
            start = try file.begin(head)
        } catch {
            return stop(error)
        }
        let (action, task) = locked.withLock { $0.state.fileBegan(start) }
        switch action {
        case .write(let total): request.expectBody(total: total)
        case .tooLarge(let limit): request.stop(with: .responseTooLarge(limit: limit))
        case .restart: task?.cancel()
        case .keepInMemory: break
        }
    }

    func transportDidReceive(chunk: Data) {
        guard let inflater = locked.withLock({ $0.inflater }) else {
            _ = take(chunk)
            return
        }
        do {
            try inflater.inflate(chunk) { piece in
                // A bomb inflates far more than it sends: stop inflating once the body is refused.
                guard take(piece) else { throw CancellationError() }
            }
        } catch is CancellationError {
            return
        } catch {
            fail(.transport(TransportError(.badContentEncoding, transportText: "\(error)")))
        }
    }

    /// Takes one delivered (inflated) piece of the body; returns false once the body is refused.
    private func take(_ piece: Data) -> Bool {
        switch locked.withLock({ $0.state.take(piece, now: .now) }) {
        case .kept(let received):
            request.didReceive(bodyBytes: received)
            return true
        case .toFile:
            return write(piece)
        case .toStream(let received):
            request.didReceive(bodyBytes: received)
            guard let sink = setup.sink else { return false }
            if let error = sink.feed(piece, request: request, canWait: setup.transportPausesReading) {
                fail(error)
                return false
            }
            return true
        case .dropped:
            return true
        case .overLimit(let limit):
            request.stop(with: .responseTooLarge(limit: limit))
            return false
        case .cancelTransfer:
            locked.withLock { $0.state.transferToCancel() }?.cancel()
            return false
        }
    }

    /// Writes a download's piece (on the transport's context: the file is written as bytes
    /// arrive, nothing accumulates in memory).
    private func write(_ piece: Data) -> Bool {
        guard case .file(let file) = setup.body else { return false }
        do {
            let length = try file.write(piece)
            if let limit = locked.withLock({ $0.state.wroteToFile(count: piece.count, fileLength: length) }) {
                request.stop(with: .responseTooLarge(limit: limit))
                return false
            }
            request.didReceive(bodyBytes: length)
            return true
        } catch {
            stop(error)
            return false
        }
    }

    /// Stops the transfer for a limit or a file error: the request finishes with `error`,
    /// whatever the transport reports after its cancellation.
    private func stop(_ error: NetworkError) {
        locked.withLock { $0.state.stop() }
        request.stop(with: error)
    }

    /// Fails this transfer (not the request: a retry may follow) with `error`.
    private func fail(_ error: NetworkError) {
        locked.withLock { $0.state.fail(error) }?.cancel()
    }

    /// A stream's backpressure: returns once its consumers have room (the wait is not idle time).
    func transportReadyForMoreBody() async {
        guard let sink = setup.sink, !sink.hasRoom else { return }
        locked.withLock { $0.state.pause(true, now: .now) }
        await sink.waitForRoom()
        locked.withLock { $0.state.pause(false, now: .now) }
    }

    func transportDidComplete(failure: NetworkError?) {
        if failure == nil, let inflater = locked.withLock({ $0.inflater }) {
            do {
                try inflater.finish()
            } catch {
                fail(.transport(TransportError(.badContentEncoding, transportText: "\(error)")))
            }
        }
        let (outcome, continuation) = locked.withLock { locked in
            defer { locked.continuation = nil; locked.inflater = nil }
            return (locked.state.complete(failure: failure), locked.continuation)
        }
        setup.idleWatch.remove(self)
        continuation?.resume(returning: outcome)
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
