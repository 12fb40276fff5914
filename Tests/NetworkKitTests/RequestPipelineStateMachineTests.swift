import Foundation
import Testing
@testable import NetworkKit

/// The attempt loop's state machine as tables of phase × event → phase and action, with no
/// server: every pair, including a cancel during adapt and during the back-off, a restart reason
/// on a request that is not a download, a second restart, a `304` without a cache entry, a retry
/// after a restart and a stop requested while the transfer finishes.
@Suite("Attempt state machine")
struct RequestPipelineStateMachineTests {
    /// The phases a table starts from, each reached through the machine's own events, for a
    /// plain request unless the name says a download or a request with a cache entry.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case ready, adapting, transferring, transferringDownload, transferringCached, transferringPost,
             transferringAfterResends, resending, restartingDownload, restartingDownloadAgain, revalidating,
             responding, askingInterceptors, backingOff, finished

        var testDescription: String { rawValue }

        /// A new machine of this start's kind, led here by its `path`.
        func machine() -> RequestPipeline.StateMachine {
            var machine = RequestPipeline.StateMachine(partialFile: isDownload ? RequestPipelineStateMachineTests.partialFile : nil,
                                                       canRevalidate: self == .transferringCached || self == .revalidating,
                                                       isIdempotent: self != .transferringPost,
                                                       resendLimit: RequestPipelineStateMachineTests.resendLimit,
                                                       assertsOnBrokenTransition: false)
            for event in path { _ = event.send(to: &machine) }
            return machine
        }

        /// Whether the request downloads to a file.
        private var isDownload: Bool {
            [.transferringDownload, .restartingDownload, .restartingDownloadAgain].contains(self)
        }

        /// The events that lead here from `ready`.
        private var path: [Event] {
            let toTransfer: [Event] = [.start, .adapted]
            switch self {
            case .ready: return []
            case .adapting: return [.start]
            case .transferring, .transferringDownload, .transferringCached, .transferringPost: return toTransfer
            case .resending: return toTransfer + [.transferredUnprocessed]
            case .transferringAfterResends:
                return toTransfer + [.transferredUnprocessed, .resendAnnounced, .adapted, .transferredClosed,
                                     .resendAnnounced, .adapted]
            case .restartingDownload: return toTransfer + [.transferredRestart]
            case .restartingDownloadAgain:
                return toTransfer + [.transferredRestart, .partialFileDiscarded, .adapted, .transferredRestart]
            case .revalidating: return toTransfer + [.transferred304]
            case .responding: return toTransfer + [.transferred]
            case .askingInterceptors: return toTransfer + [.transferred, .respondedFailure]
            case .backingOff: return toTransfer + [.transferred, .respondedFailure, .retry]
            case .finished: return toTransfer + [.transferred, .responded]
            }
        }
    }

    /// Every event the pipeline reports, in the variants that matter; `name` is the machine's
    /// method.
    enum Event: String, CaseIterable, CustomTestStringConvertible {
        case start
        case adapted, adaptedAfterStop, adaptFailed, adaptCancelled
        case transferred, transferredAfterStop, transferredRestart, transferredRestartAfterStop
        case transferred304, transferred304AfterStop
        case transferredRedirect, transferredRedirectAfterStop
        case transferredUnprocessed, transferredUnprocessedAfterStop, transferredClosed, transferredMayHaveProcessed
        case resendAnnounced
        case partialFileDiscarded
        case revalidated, revalidatedFailure, revalidatedNothing
        case responded, respondedFailure, respondedCancelled, respondedFailureAfterStop
        case retry, doNotRetry
        case backedOff, backOffCancelled

        var testDescription: String { rawValue }

        /// The machine's method this event calls.
        var name: String {
            switch self {
            case .start: "start"
            case .adapted, .adaptedAfterStop: "adapted"
            case .adaptFailed, .adaptCancelled: "adaptFailed"
            case .transferred, .transferredAfterStop, .transferredRestart, .transferredRestartAfterStop,
                 .transferred304, .transferred304AfterStop, .transferredUnprocessed, .transferredUnprocessedAfterStop,
                 .transferredClosed, .transferredMayHaveProcessed, .transferredRedirect, .transferredRedirectAfterStop: "transferred"
            case .resendAnnounced: "resendAnnounced"
            case .partialFileDiscarded: "partialFileDiscarded"
            case .revalidated, .revalidatedFailure, .revalidatedNothing: "revalidated"
            case .responded, .respondedFailure, .respondedCancelled, .respondedFailureAfterStop: "responded"
            case .retry, .doNotRetry: "interceptorsDecided"
            case .backedOff, .backOffCancelled: "backedOff"
            }
        }

        /// Reports this event to `machine`; returns its action.
        func send(to machine: inout RequestPipeline.StateMachine) -> RequestPipeline.StateMachine.Action {
            switch self {
            case .start: machine.start()
            case .adapted: machine.adapted(stopRequested: false)
            case .adaptedAfterStop: machine.adapted(stopRequested: true)
            case .adaptFailed: machine.adaptFailed(.invalidURL("ftp://example.com"))
            case .adaptCancelled: machine.adaptFailed(.cancelled)
            case .transferred: machine.transferred(RequestPipelineStateMachineTests.answer(200), stopRequested: false)
            case .transferredAfterStop: machine.transferred(RequestPipelineStateMachineTests.answer(200), stopRequested: true)
            case .transferredRestart: machine.transferred(RequestPipelineStateMachineTests.mismatch, stopRequested: false)
            case .transferredRestartAfterStop: machine.transferred(RequestPipelineStateMachineTests.mismatch, stopRequested: true)
            case .transferred304: machine.transferred(RequestPipelineStateMachineTests.answer(304), stopRequested: false)
            case .transferred304AfterStop: machine.transferred(RequestPipelineStateMachineTests.answer(304), stopRequested: true)
            case .transferredRedirect: machine.transferred(RequestPipelineStateMachineTests.redirect, stopRequested: false)
            case .transferredRedirectAfterStop: machine.transferred(RequestPipelineStateMachineTests.redirect, stopRequested: true)
            case .transferredUnprocessed: machine.transferred(RequestPipelineStateMachineTests.lost(.notProcessed), stopRequested: false)
            case .transferredUnprocessedAfterStop:
                machine.transferred(RequestPipelineStateMachineTests.lost(.notProcessed), stopRequested: true)
            case .transferredClosed: machine.transferred(RequestPipelineStateMachineTests.lost(.closedBeforeAnswer), stopRequested: false)
            case .transferredMayHaveProcessed:
                machine.transferred(RequestPipelineStateMachineTests.lost(.mayHaveProcessed), stopRequested: false)
            case .resendAnnounced: machine.resendAnnounced()
            case .partialFileDiscarded: machine.partialFileDiscarded()
            case .revalidated: machine.revalidated(.success("from the cache"))
            case .revalidatedFailure: machine.revalidated(.failure(RequestPipelineStateMachineTests.unavailable))
            case .revalidatedNothing: machine.revalidated(nil)
            case .responded: machine.responded(.success("parsed"), stopRequested: false)
            case .respondedFailure: machine.responded(.failure(RequestPipelineStateMachineTests.unavailable), stopRequested: false)
            case .respondedCancelled: machine.responded(.failure(.cancelled), stopRequested: false)
            case .respondedFailureAfterStop: machine.responded(.failure(RequestPipelineStateMachineTests.unavailable), stopRequested: true)
            case .retry: machine.interceptorsDecided(.retry(after: .seconds(2)))
            case .doNotRetry: machine.interceptorsDecided(.doNotRetry)
            case .backedOff: machine.backedOff(cancelled: false)
            case .backOffCancelled: machine.backedOff(cancelled: true)
            }
        }
    }

    /// The downloads' partial file, a failure the interceptors are asked about, and a `206` that
    /// cannot continue the partial file.
    static let partialFile = URL(fileURLWithPath: "/tmp/attempt-state-tests.partial")
    static let unavailable = NetworkError.httpStatus(code: 503, body: Data(), headerFields: [:])
    static let mismatch = TransferOutcome(head: ResponseHead(url: nil, status: 206, headerFields: [:]),
                                          restartReason: "bytes 5-9/10")

    /// A transfer whose answer was a `302` the redirect policy follows.
    static let redirect = TransferOutcome(redirect: OutgoingRequest(head: HTTPRequest(url: URL(string: "http://127.0.0.1/next")!)),
                                          redirectHead: ResponseHead(url: nil, status: 302, headerFields: [:]))

    /// How many attempts the server did not process the machines send again.
    static let resendLimit = 2

    /// A transfer that failed before any answer, saying whether the server processed it.
    static func lost(_ processing: ServerProcessing) -> TransferOutcome {
        TransferOutcome(error: .transport(TransportError(.networkConnectionLost, detail: "lost", serverProcessing: processing)))
    }

    /// A transfer that ended with a head of `status`.
    static func answer(_ status: Int) -> TransferOutcome {
        TransferOutcome(head: ResponseHead(url: nil, status: .init(code: status), headerFields: [:]))
    }

    /// The events each phase waits for; every other event is out of order there.
    static let waitsFor: [String: Set<String>] = [
        "ready": ["start"],
        "adapting": ["adapted", "adaptFailed"],
        "transferring": ["transferred"],
        "resending": ["resendAnnounced"],
        "restartingDownload": ["partialFileDiscarded"],
        "revalidating": ["revalidated"],
        "responding": ["responded"],
        "askingInterceptors": ["interceptorsDecided"],
        "backingOff": ["backedOff"],
        "finished": [],
    ]

    /// One row: from `start`, `event` leads to `phase` and returns `action`.
    struct Row: Sendable {
        let start: Start, event: Event, phase: String, action: String
        init(_ start: Start, _ event: Event, _ phase: String, _ action: String) {
            (self.start, self.event, self.phase, self.action) = (start, event, phase, action)
        }
    }

    /// Every event each phase waits for, in every variant.
    static let table: [Row] = [
        Row(.ready, .start, "adapting(1)", "adapt(1)"),

        Row(.adapting, .adapted, "transferring(1)", "send(1)"),
        Row(.adapting, .adaptedAfterStop, "finished(cancelled)", "finish(cancelled)"),      // cancel during adapt
        Row(.adapting, .adaptFailed, "finished(invalidURL)", "finish(invalidURL)"),
        Row(.adapting, .adaptCancelled, "finished(cancelled)", "finish(cancelled)"),        // an interceptor cancelled

        Row(.transferring, .transferred, "responding(1)", "respond"),
        Row(.transferring, .transferredAfterStop, "responding(1)", "respond"),             // the answer still finishes
        Row(.transferring, .transferredRestart, "responding(1)", "respond"),               // not a download: no restart
        Row(.transferring, .transferredRestartAfterStop, "responding(1)", "respond"),
        Row(.transferring, .transferred304, "responding(1)", "respond"),                   // no cache entry: a plain 304
        Row(.transferring, .transferred304AfterStop, "responding(1)", "respond"),
        Row(.transferring, .transferredRedirect, "transferring(1)", "followRedirect(1, /next)"),
        Row(.transferring, .transferredRedirectAfterStop, "responding(1)", "respond"),
        Row(.transferring, .transferredUnprocessed, "resending(1)", "resend(1, notProcessed)"),
        Row(.transferring, .transferredUnprocessedAfterStop, "responding(1)", "respond"),   // stopped: not sent again
        Row(.transferring, .transferredClosed, "resending(1)", "resend(1, closedBeforeAnswer)"),
        Row(.transferring, .transferredMayHaveProcessed, "responding(1)", "respond"),      // the retry policy's call

        Row(.transferringDownload, .transferred, "responding(1)", "respond"),
        Row(.transferringDownload, .transferredAfterStop, "responding(1)", "respond"),
        Row(.transferringDownload, .transferredRestart, "restartingDownload(1, bytes 5-9/10)", "discardPartialFile"),
        Row(.transferringDownload, .transferredRestartAfterStop, "responding(1)", "respond"),   // stopped: no restart
        Row(.transferringDownload, .transferred304, "responding(1)", "respond"),
        Row(.transferringDownload, .transferred304AfterStop, "responding(1)", "respond"),
        Row(.transferringDownload, .transferredRedirect, "transferring(1)", "followRedirect(1, /next)"),
        Row(.transferringDownload, .transferredRedirectAfterStop, "responding(1)", "respond"),
        Row(.transferringDownload, .transferredUnprocessed, "resending(1)", "resend(1, notProcessed)"),
        Row(.transferringDownload, .transferredUnprocessedAfterStop, "responding(1)", "respond"),
        Row(.transferringDownload, .transferredClosed, "resending(1)", "resend(1, closedBeforeAnswer)"),
        Row(.transferringDownload, .transferredMayHaveProcessed, "responding(1)", "respond"),

        Row(.transferringCached, .transferred, "responding(1)", "respond"),
        Row(.transferringCached, .transferredAfterStop, "responding(1)", "respond"),
        Row(.transferringCached, .transferredRestart, "responding(1)", "respond"),
        Row(.transferringCached, .transferredRestartAfterStop, "responding(1)", "respond"),
        Row(.transferringCached, .transferred304, "revalidating(1)", "revalidate(304)"),
        Row(.transferringCached, .transferred304AfterStop, "revalidating(1)", "revalidate(304)"),
        Row(.transferringCached, .transferredRedirect, "transferring(1)", "followRedirect(1, /next)"),
        Row(.transferringCached, .transferredRedirectAfterStop, "responding(1)", "respond"),
        Row(.transferringCached, .transferredUnprocessed, "resending(1)", "resend(1, notProcessed)"),
        Row(.transferringCached, .transferredUnprocessedAfterStop, "responding(1)", "respond"),
        Row(.transferringCached, .transferredClosed, "resending(1)", "resend(1, closedBeforeAnswer)"),
        Row(.transferringCached, .transferredMayHaveProcessed, "responding(1)", "respond"),

        // A POST: sent again only when the server said it did not process it.
        Row(.transferringPost, .transferred, "responding(1)", "respond"),
        Row(.transferringPost, .transferredAfterStop, "responding(1)", "respond"),
        Row(.transferringPost, .transferredRestart, "responding(1)", "respond"),
        Row(.transferringPost, .transferredRestartAfterStop, "responding(1)", "respond"),
        Row(.transferringPost, .transferred304, "responding(1)", "respond"),
        Row(.transferringPost, .transferred304AfterStop, "responding(1)", "respond"),
        Row(.transferringPost, .transferredRedirect, "transferring(1)", "followRedirect(1, /next)"),
        Row(.transferringPost, .transferredRedirectAfterStop, "responding(1)", "respond"),
        Row(.transferringPost, .transferredUnprocessed, "resending(1)", "resend(1, notProcessed)"),
        Row(.transferringPost, .transferredUnprocessedAfterStop, "responding(1)", "respond"),
        Row(.transferringPost, .transferredClosed, "responding(1)", "respond"),
        Row(.transferringPost, .transferredMayHaveProcessed, "responding(1)", "respond"),

        // Two attempts already sent again (the limit): the next failure goes to the interceptors.
        Row(.transferringAfterResends, .transferred, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredAfterStop, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredRestart, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredRestartAfterStop, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferred304, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferred304AfterStop, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredRedirect, "transferring(3)", "followRedirect(3, /next)"),
        Row(.transferringAfterResends, .transferredRedirectAfterStop, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredUnprocessed, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredUnprocessedAfterStop, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredClosed, "responding(3)", "respond"),
        Row(.transferringAfterResends, .transferredMayHaveProcessed, "responding(3)", "respond"),

        Row(.resending, .resendAnnounced, "adapting(2)", "adapt(2)"),

        Row(.restartingDownload, .partialFileDiscarded, "adapting(2)", "adapt(2)"),
        Row(.restartingDownloadAgain, .partialFileDiscarded, "finished(rangeMismatch)", "finish(rangeMismatch)"),

        Row(.revalidating, .revalidated, "finished(success)", "finish(success)"),
        Row(.revalidating, .revalidatedFailure, "finished(503)", "finish(503)"),            // not offered for a retry
        Row(.revalidating, .revalidatedNothing, "responding(1)", "respond"),

        Row(.responding, .responded, "finished(success)", "finish(success)"),
        Row(.responding, .respondedFailure, "askingInterceptors(1, 503)", "askInterceptors(1, 503)"),
        Row(.responding, .respondedCancelled, "finished(cancelled)", "finish(cancelled)"),
        Row(.responding, .respondedFailureAfterStop, "finished(503)", "finish(503)"),

        Row(.askingInterceptors, .retry, "backingOff(1)", "backOff(2s, 1, 503)"),
        Row(.askingInterceptors, .doNotRetry, "finished(503)", "finish(503)"),

        Row(.backingOff, .backedOff, "adapting(2)", "adapt(2)"),
        Row(.backingOff, .backOffCancelled, "finished(cancelled)", "finish(cancelled)"),  // cancel during the back-off
    ]

    /// Every phase × every event: the table's row, or else the event is out of order: a broken
    /// transition the machine names, which ends the loop cancelled (and after the finish, repeats
    /// the result it finished with).
    @Test("every phase × every event", arguments: Start.allCases, Event.allCases)
    func everyPair(_ start: Start, _ event: Event) {
        var machine = start.machine()
        let phase = machine.phase.name
        let action = event.send(to: &machine)
        let row = Self.table.first { $0.start == start && $0.event == event }
        let outOfOrder = start == .finished ? "success" : "cancelled"
        #expect(Self.describe(action) == row?.action ?? "finish(\(outOfOrder))")
        #expect(Self.describe(machine.phase) == row?.phase ?? "finished(\(outOfOrder))")
        #expect(machine.brokenTransition == (row == nil ? "\(event.name) while \(phase)" : nil))
    }

    /// The table has a row for exactly the events each phase waits for, so no pair it leaves out
    /// is one the loop should take.
    @Test func theTableHoldsEveryEventAPhaseWaitsFor() {
        for start in Start.allCases {
            let phase = start.machine().phase.name
            #expect(Self.waitsFor[phase] != nil, "\(start) is in an unknown phase")
            for event in Event.allCases {
                let waited = Self.waitsFor[phase, default: []].contains(event.name)
                let inTable = Self.table.contains { $0.start == start && $0.event == event }
                #expect(waited == inTable, "\(start) × \(event)")
            }
        }
    }

    /// An event out of order is the driver's bug, not the caller's error: the machine names the
    /// first one and its phase, and the loop ends cancelled.
    @Test func anEventOutOfOrderSaysWhich() {
        var machine = Start.adapting.machine()
        guard case .finish(.failure(.cancelled)) = machine.responded(.success(1), stopRequested: false) else {
            Issue.record("an event out of order must finish the loop")
            return
        }
        _ = machine.adapted(stopRequested: false)
        #expect(machine.brokenTransition == "responded while adapting")
    }

    /// Each attempt follows up to `maxRedirects` redirects; the next one fails the attempt with
    /// `httpTooManyRedirects`, which the interceptors are asked about; a retry counts afresh.
    @Test func redirectsAreCountedPerAttempt() {
        var machine = RequestPipeline.StateMachine(partialFile: nil, maxRedirects: 2, assertsOnBrokenTransition: false)
        _ = machine.start()
        _ = machine.adapted(stopRequested: false)
        var outcome = Self.redirect
        #expect(Self.describe(machine.transferred(&outcome, stopRequested: false)) == "followRedirect(1, /next)")
        #expect(Self.describe(machine.transferred(&outcome, stopRequested: false)) == "followRedirect(1, /next)")
        #expect(machine.redirectsFollowed == 2)
        #expect(Self.describe(machine.transferred(&outcome, stopRequested: false)) == "respond")
        guard case .transport(let failure)? = outcome.error else {
            Issue.record("the third redirect must fail the attempt, got \(outcome)")
            return
        }
        #expect(failure.code == .httpTooManyRedirects && outcome.redirect == nil)
        let tooMany = NetworkError.transport(failure)
        _ = machine.responded(.failure(tooMany), stopRequested: false)
        _ = machine.interceptorsDecided(.retry(after: .zero))
        _ = machine.backedOff(cancelled: false)
        _ = machine.adapted(stopRequested: false)
        #expect(machine.redirectsFollowed == 0)
        outcome = Self.redirect
        #expect(Self.describe(machine.transferred(&outcome, stopRequested: false)) == "followRedirect(2, /next)")
        #expect(machine.brokenTransition == nil)
    }

    /// One GET answered at once: four events, one attempt.
    @Test func oneAttemptAnswered() {
        Self.expect(.plain, steps: [
            (.start, "adapt(1)"), (.adapted, "send(1)"), (.transferred, "respond"), (.responded, "finish(success)"),
        ])
    }

    /// The one restart from zero is the request's, not the attempt's: after a restart and a
    /// retry, the next mismatch fails the download, naming its partial file and the range.
    @Test func aRetryAfterARestartDoesNotRestartAgain() {
        let machine = Self.expect(.download, steps: [
            (.start, "adapt(1)"), (.adapted, "send(1)"), (.transferredRestart, "discardPartialFile"),
            (.partialFileDiscarded, "adapt(2)"), (.adapted, "send(2)"), (.transferred, "respond"),
            (.respondedFailure, "askInterceptors(2, 503)"), (.retry, "backOff(2s, 2, 503)"), (.backedOff, "adapt(3)"),
            (.adapted, "send(3)"), (.transferredRestart, "discardPartialFile"),
            (.partialFileDiscarded, "finish(rangeMismatch)"),
        ])
        guard case .finished(.failure(.download(let error))) = machine.phase else {
            Issue.record("the second mismatch must fail the download")
            return
        }
        #expect(error.reason == .rangeMismatch("bytes 5-9/10"))
        #expect(error.file == Self.partialFile)
    }

    /// Each retry is the next attempt, and a cached request revalidates on any attempt.
    @Test func retriesCountAttempts() {
        Self.expect(.cached, steps: [
            (.start, "adapt(1)"), (.adapted, "send(1)"), (.transferred, "respond"),
            (.respondedFailure, "askInterceptors(1, 503)"), (.retry, "backOff(2s, 1, 503)"), (.backedOff, "adapt(2)"),
            (.adapted, "send(2)"), (.transferred, "respond"),
            (.respondedFailure, "askInterceptors(2, 503)"), (.retry, "backOff(2s, 2, 503)"), (.backedOff, "adapt(3)"),
            (.adapted, "send(3)"), (.transferred304, "revalidate(304)"), (.revalidated, "finish(success)"),
        ])
    }

    /// Attempts the server did not process are sent again, and counted apart, up to the limit
    /// over the request's attempts (retries included); then the interceptors decide.
    @Test func unprocessedAttemptsAreSentAgainWithinTheLimit() {
        let machine = Self.expect(.plain, steps: [
            (.start, "adapt(1)"), (.adapted, "send(1)"), (.transferredClosed, "resend(1, closedBeforeAnswer)"),
            (.resendAnnounced, "adapt(2)"), (.adapted, "send(2)"), (.transferred, "respond"),
            (.respondedFailure, "askInterceptors(2, 503)"), (.retry, "backOff(2s, 2, 503)"), (.backedOff, "adapt(3)"),
            (.adapted, "send(3)"), (.transferredUnprocessed, "resend(3, notProcessed)"),
            (.resendAnnounced, "adapt(4)"), (.adapted, "send(4)"), (.transferredUnprocessed, "respond"),
        ])
        #expect(machine.unprocessedAttempts == 2)
    }

    /// Once a transfer read a body that cannot be made again, nothing is sent again: not an
    /// attempt the server did not process, not a retry, not a download's restart. The failure
    /// stands as it came, and the interceptors are not asked.
    @Test func aSpentBodyIsNeverSentAgain() {
        // A machine whose first attempt is with the transport.
        func transferring(partialFile: URL? = nil) -> RequestPipeline.StateMachine {
            var machine = RequestPipeline.StateMachine(partialFile: partialFile, canRevalidate: false,
                                                       resendLimit: Self.resendLimit, assertsOnBrokenTransition: false)
            _ = machine.start()
            _ = machine.adapted(stopRequested: false)
            return machine
        }
        let failure = NetworkError.httpStatus(code: 503, body: Data(), headerFields: [:])
        var plain = transferring()
        #expect(Self.describe(plain.transferred(Self.lost(.notProcessed), stopRequested: false, bodyCanBeSentAgain: false))
                == "respond", "not resent")
        #expect(Self.describe(plain.responded(.failure(failure), stopRequested: false)) == "finish(503)", "not retried")

        var unread = transferring()
        #expect(Self.describe(unread.transferred(Self.lost(.notProcessed), stopRequested: false, bodyCanBeSentAgain: true))
                == "resend(1, notProcessed)", "a body no one read yet can still be sent")

        var download = transferring(partialFile: Self.partialFile)
        #expect(Self.describe(download.transferred(Self.mismatch, stopRequested: false, bodyCanBeSentAgain: false))
                == "finish(rangeMismatch)", "no restart from zero")
        #expect(plain.brokenTransition == nil && unread.brokenTransition == nil && download.brokenTransition == nil)
    }

    @Test("a stream's connections: each end is asked about, a wait leads to the next attempt, the policy or a cancel ends it")
    func aStreamReconnectsAsItsPolicySays() {
        let policy = StreamReconnection(delay: .seconds(1), maxDelay: .seconds(5), backoffMultiplier: 2, maxFailedConnects: 2)
        var machine = RequestPipeline.StateMachine(partialFile: nil, canRevalidate: false, resendLimit: Self.resendLimit,
                                                   reconnection: policy, assertsOnBrokenTransition: false)
        let drop = NetworkError.transport(TransportError(.networkConnectionLost))
        let steps: [(String, () -> RequestPipeline.StateMachine.Action)] = [
            ("adapt(1)", { machine.start() }),
            ("send(1)", { machine.adapted(stopRequested: false) }),
            ("respond", { machine.transferred(Self.answer(200), stopRequested: false) }),
            ("endConnection(success)", { machine.responded(.success("ended"), stopRequested: false) }),
            ("waitToReconnect(1s)", { machine.connectionEnded(.endOfBody, serverDelay: nil) }),
            ("adapt(2)", { machine.waitedToReconnect(cancelled: false) }),
            ("endConnection(\(Self.describe(drop)))", { machine.adaptFailed(drop) }),
            ("waitToReconnect(2s)", { machine.connectionEnded(.failed(drop, began: false), serverDelay: nil) }),
            ("adapt(3)", { machine.waitedToReconnect(cancelled: false) }),
            ("send(3)", { machine.adapted(stopRequested: false) }),
            ("respond", { machine.transferred(Self.answer(204), stopRequested: false) }),
            ("endConnection(success)", { machine.responded(.success("no content"), stopRequested: false) }),
            ("finish(success)", { machine.connectionEnded(.noContent, serverDelay: nil) }),
        ]
        for (index, (expected, event)) in steps.enumerated() {
            #expect(Self.describe(event()) == expected, "step \(index + 1)")
        }
        #expect(machine.brokenTransition == nil)

        var cancelled = RequestPipeline.StateMachine(partialFile: nil, canRevalidate: false, reconnection: policy,
                                                     assertsOnBrokenTransition: false)
        _ = cancelled.start()
        _ = cancelled.adaptFailed(drop)
        #expect(Self.describe(cancelled.connectionEnded(.failed(drop, began: true), serverDelay: .seconds(3))) == "waitToReconnect(3s)")
        #expect(Self.describe(cancelled.waitedToReconnect(cancelled: true)) == "finish(cancelled)")
        #expect(cancelled.brokenTransition == nil)
    }

    @Test("the cache is asked before the first attempt: its answer finishes the request; without one, a 304 may answer from it")
    func theCacheIsAskedFirst() {
        var answered = RequestPipeline.StateMachine(partialFile: nil, looksUpCache: true, assertsOnBrokenTransition: false)
        #expect(Self.describe(answered.start()) == "lookUpCache")
        #expect(Self.describe(answered.cacheLookedUp(.success("cached"), canRevalidate: false)) == "finish(success)")

        var missed = RequestPipeline.StateMachine(partialFile: nil, looksUpCache: true, assertsOnBrokenTransition: false)
        _ = missed.start()
        #expect(Self.describe(missed.cacheLookedUp(nil, canRevalidate: true)) == "adapt(1)")
        _ = missed.adapted(stopRequested: false)
        #expect(Self.describe(missed.transferred(Self.answer(304), stopRequested: false)) == "revalidate(304)")

        var stale = RequestPipeline.StateMachine(partialFile: nil, looksUpCache: true, assertsOnBrokenTransition: false)
        _ = stale.start()
        _ = stale.cacheLookedUp(nil, canRevalidate: false)
        _ = stale.adapted(stopRequested: false)
        #expect(Self.describe(stale.transferred(Self.answer(304), stopRequested: false)) == "respond", "no entry to refresh")
        #expect(answered.brokenTransition == nil && missed.brokenTransition == nil && stale.brokenTransition == nil)

        var plain = RequestPipeline.StateMachine(partialFile: nil, assertsOnBrokenTransition: false)
        #expect(Self.describe(plain.start()) == "adapt(1)")
        _ = plain.cacheLookedUp(nil, canRevalidate: false)
        #expect(plain.brokenTransition == "cacheLookedUp while adapting")
    }

    @Test("where the service limits the requests in flight, each attempt waits for room; a stop while it waits finishes it")
    func eachAttemptWaitsForRoom() {
        var machine = RequestPipeline.StateMachine(partialFile: nil, waitsForRoom: true, resendLimit: Self.resendLimit,
                                                   assertsOnBrokenTransition: false)
        let steps: [(String, () -> RequestPipeline.StateMachine.Action)] = [
            ("adapt(1)", { machine.start() }),
            ("waitForRoom(1)", { machine.adapted(stopRequested: false) }),
            ("send(1)", { machine.roomFound(cancelled: false) }),
            ("resend(1, notProcessed)", { machine.transferred(Self.lost(.notProcessed), stopRequested: false) }),
            ("adapt(2)", { machine.resendAnnounced() }),
            ("waitForRoom(2)", { machine.adapted(stopRequested: false) }),
            ("finish(cancelled)", { machine.roomFound(cancelled: true) }),
        ]
        for (index, (expected, event)) in steps.enumerated() {
            #expect(Self.describe(event()) == expected, "step \(index + 1)")
        }
        #expect(machine.brokenTransition == nil)
        var unlimited = RequestPipeline.StateMachine(partialFile: nil, assertsOnBrokenTransition: false)
        _ = unlimited.start()
        #expect(Self.describe(unlimited.adapted(stopRequested: false)) == "send(1)")
        _ = unlimited.roomFound(cancelled: false)
        #expect(unlimited.brokenTransition == "roomFound while transferring")
    }

    @Test("a machine without a reconnection policy never asks about a connection's end, and refuses one")
    func aRequestThatDoesNotReconnectFinishesAtOnce() {
        var machine = RequestPipeline.StateMachine(partialFile: nil, canRevalidate: false, assertsOnBrokenTransition: false)
        _ = machine.start()
        _ = machine.adapted(stopRequested: false)
        _ = machine.transferred(Self.answer(200), stopRequested: false)
        #expect(Self.describe(machine.responded(.success("parsed"), stopRequested: false)) == "finish(success)")
        #expect(Self.describe(machine.connectionEnded(.endOfBody, serverDelay: nil)) == "finish(success)")
        #expect(machine.brokenTransition == "connectionEnded while finished")
    }

    // MARK: - Driving and describing

    /// The request a sequence drives: in memory, a download, or one with a cache entry.
    enum Kind { case plain, download, cached }

    /// Sends each step's event to a new machine for a request of `kind`, expecting its action.
    @discardableResult
    static func expect(_ kind: Kind, steps: [(Event, String)],
                       sourceLocation: SourceLocation = #_sourceLocation) -> RequestPipeline.StateMachine {
        var machine = RequestPipeline.StateMachine(partialFile: kind == .download ? partialFile : nil, canRevalidate: kind == .cached,
                                                   resendLimit: resendLimit, assertsOnBrokenTransition: false)
        for (index, (event, action)) in steps.enumerated() {
            #expect(describe(event.send(to: &machine)) == action, "step \(index + 1), \(event)",
                    sourceLocation: sourceLocation)
        }
        #expect(machine.brokenTransition == nil, sourceLocation: sourceLocation)
        return machine
    }

    /// The phase with its values, as the tables write it.
    static func describe(_ phase: RequestPipeline.StateMachine.Phase) -> String {
        switch phase {
        case .ready: "ready"
        case .lookingUpCache: "lookingUpCache"
        case .waitingForRoom(let attempt): "waitingForRoom(\(attempt))"
        case .adapting(let attempt): "adapting(\(attempt))"
        case .transferring(let attempt): "transferring(\(attempt))"
        case .resending(let attempt): "resending(\(attempt))"
        case .restartingDownload(let attempt, let reason): "restartingDownload(\(attempt), \(reason))"
        case .revalidating(let attempt): "revalidating(\(attempt))"
        case .responding(let attempt): "responding(\(attempt))"
        case .askingInterceptors(let attempt, let error): "askingInterceptors(\(attempt), \(describe(error)))"
        case .backingOff(let attempt): "backingOff(\(attempt))"
        case .endingConnection(let attempt, let result): "endingConnection(\(attempt), \(describe(result)))"
        case .waitingToReconnect(let attempt): "waitingToReconnect(\(attempt))"
        case .finished(let result): "finished(\(describe(result)))"
        }
    }

    /// The action with its values, as the tables write it.
    static func describe(_ action: RequestPipeline.StateMachine.Action) -> String {
        switch action {
        case .lookUpCache: "lookUpCache"
        case .waitForRoom(let attempt): "waitForRoom(\(attempt))"
        case .adapt(let attempt): "adapt(\(attempt))"
        case .send(let attempt): "send(\(attempt))"
        case .resend(let attempt, let error): "resend(\(attempt), \(describe(error)))"
        case .discardPartialFile: "discardPartialFile"
        case .revalidate(let head): "revalidate(\(head.status.code))"
        case .respond: "respond"
        case .followRedirect(let redirect, _, let attempt): "followRedirect(\(attempt), \(redirect.url?.path ?? ""))"
        case .askInterceptors(let attempt, let error): "askInterceptors(\(attempt), \(describe(error)))"
        case .backOff(let delay, let attempt, let error):
            "backOff(\(delay.components.seconds)s, \(attempt), \(describe(error)))"
        case .endConnection(let result): "endConnection(\(describe(result)))"
        case .waitToReconnect(let delay): "waitToReconnect(\(delay.components.seconds)s)"
        case .finish(let result): "finish(\(describe(result)))"
        }
    }

    /// `success`, or the failure as `describe(_:)` writes it.
    static func describe(_ result: AnyResult) -> String {
        switch result {
        case .success: "success"
        case .failure(let error): describe(error)
        }
    }

    /// The failures the tables use, in a word (a status as its code).
    static func describe(_ error: NetworkError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .httpStatus(let code, _, _): "\(code)"
        case .invalidURL: "invalidURL"
        case .transport(let error) where error.serverProcessing != nil: error.serverProcessing?.rawValue ?? ""
        case .download(let error) where error.reason == .rangeMismatch("bytes 5-9/10"): "rangeMismatch"
        default: "\(error)"
        }
    }
}

extension RequestPipeline.StateMachine {
    /// `transferred` for an outcome the tables keep as a constant.
    mutating func transferred(_ outcome: TransferOutcome, stopRequested: Bool, bodyCanBeSentAgain: Bool = true) -> Action {
        var outcome = outcome
        return transferred(&outcome, stopRequested: stopRequested, bodyCanBeSentAgain: bodyCanBeSentAgain)
    }
}
