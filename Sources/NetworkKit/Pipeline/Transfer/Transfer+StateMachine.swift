import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one transfer ended, as the pipeline reads it.
struct TransferOutcome: Sendable {
    var head: ResponseHead?
    /// The body, unless it went to a download's file.
    var body = Data()
    /// Body bytes received (in memory or on disk), as delivered: inflated when content-encoded.
    var bytesReceived: Int64 = 0
    var bytesSent: Int64 = 0
    /// Why the transfer failed: the transport's failure, or one the kit decided (a limit, the
    /// idle timeout, a bad encoding, a stream's parser).
    var error: NetworkError?
    /// The request to send next when the answer was a redirect the policy follows.
    var redirect: OutgoingRequest?
    /// That redirect's head, for the transfer's observer only (`head` stays nil: the answer is not the request's).
    var redirectHead: ResponseHead?
    /// Set when a download's answer could not continue its partial file: start again from zero.
    var restartReason: String?

    /// Adds `chunk` to the body: the first is kept as it is, not copied (a small answer's body
    /// is often one chunk).
    mutating func keep(_ chunk: Data) {
        if body.isEmpty { body = chunk } else { body.append(chunk) }
    }
}

extension Transfer {
    /// One transfer's rules as a state machine. The transport's events come in four families (the
    /// head, the body, control, the completion); each family has one action type, which `Transfer`
    /// carries out in the one function it has per family (which takes the lock and feeds the
    /// event). The machine holds no lock and no transport task (it says when to cancel the one
    /// `Transfer` holds) and does no I/O, so its rules (limits, redirects' and error bodies, what
    /// is inflated, downloads' files, the idle timeout) are tested as tables
    /// (`TransferStateMachineTests`).
    ///
    ///     awaitingHead ──head──▶ inMemory | streaming | errorBody | redirecting | awaitingFile | stopped
    ///     awaitingFile ──fileBegan──▶ toFile | errorBody | stopped
    ///     any ──limit, file error, failure, idle, restart──▶ stopped
    ///     any ──transportCompleted (and inflaterFinished, for an inflated body)──▶ completed
    ///
    /// An event no phase waits for (a file's answer without a download's head, a second
    /// completion) is a bug in the driver: it stops a debug build (`assertionFailure`) unless the
    /// machine was made to record it (`assertsOnBrokenTransition: false`, as the tables test it),
    /// and ``brokenTransition`` names it; the event is then ignored.
    struct StateMachine {
        /// Where the body goes.
        enum Phase: Equatable {
            case awaitingHead
            /// The answer is a redirect the policy follows: its body is read and dropped, up to
            /// `redirectBodyLimit`, so the connection can carry the next request.
            case redirecting
            /// A download's head: its file says whether the body continues it (`fileBegan`).
            case awaitingFile
            /// Kept in memory, up to the limit.
            case inMemory
            /// Written to the download's file.
            case toFile
            /// Handed to a stream's parser as it arrives.
            case streaming
            /// A download's or a stream's answer that is not its body (an error status, a 204): up to
            /// `errorBodyLimit` of it is kept in memory for the error.
            case errorBody
            /// Stopped: later chunks are dropped.
            case stopped
            /// The transport completed: nothing more happens to this transfer.
            case completed
        }

        /// Where an answer's body goes when it is the one asked for.
        enum Destination: Equatable {
            case memory
            /// A download's file (see `fileBegan`).
            case file
            /// A stream's parser, when the status is one of `accepting` and not 204.
            case stream(accepting: Range<Int>)
        }

        /// Error bodies of downloads and streams stay in memory: this much of them is kept.
        static let errorBodyLimit: Int64 = 1 << 20
        /// A redirect's body longer than this is not read to its end: the transfer is cancelled.
        static let redirectBodyLimit: Int64 = 1 << 20

        private(set) var phase: Phase = .awaitingHead
        private(set) var outcome = TransferOutcome()
        /// The most body bytes to take, once the head said whether the body is content-encoded.
        private(set) var limit: Int64?
        /// Inflates the body from the head on, when it is content-encoded and the transport
        /// delivers it as sent.
        private(set) var inflater: StreamingInflater?
        /// Bytes of a redirect's body dropped so far.
        private var discarded: Int64 = 0
        /// Replaces whatever error the transport completes with (the idle timeout, a bad encoding).
        private var failure: NetworkError?
        /// Set once the transfer is to be cancelled: `attached` cancels the task then, if the
        /// transport had not handed it back yet.
        private var cancelRequested = false
        /// True between the transport's completion and the inflater's last check of the body.
        private var isFinishingInflation = false
        /// When the transfer last received or sent a byte.
        private var lastActivity: ContinuousClock.Instant
        /// True while a stream's transport waits for its consumers: not idle by the server's doing.
        private var isPaused = false
        private let idleTimeout: IdleTimeout?
        /// The request's limit on the body (none when nil).
        private let sizeLimit: Int64?
        /// The most bytes a content-encoded body may inflate to.
        private let decompressionLimit: Int64
        /// Where the body of the answer asked for goes.
        private let destination: Destination
        /// True when the transport inflates content-encoded bodies itself.
        private let transportDecodes: Bool
        /// The first event that came in a phase that does not wait for it, and that phase.
        private(set) var brokenTransition: String?
        /// Whether a broken transition stops a debug build; false only where a test records it.
        private let assertsOnBrokenTransition: Bool

        /// A transfer whose body goes to `destination`, within `sizeLimit` (none when nil) and,
        /// when content-encoded, `decompressionLimit`; inflated here unless `transportDecodes`.
        /// It fails when idle for `idleTimeout` (never when nil), counted from `now`.
        init(sizeLimit: Int64?, decompressionLimit: Int64, destination: Destination, transportDecodes: Bool,
             idleTimeout: IdleTimeout?, now: ContinuousClock.Instant, assertsOnBrokenTransition: Bool = true) {
            self.sizeLimit = sizeLimit
            self.decompressionLimit = decompressionLimit
            self.destination = destination
            self.transportDecodes = transportDecodes
            self.idleTimeout = idleTimeout
            self.assertsOnBrokenTransition = assertsOnBrokenTransition
            lastActivity = now
        }
    }
}

// MARK: - The head

extension Transfer.StateMachine {
    /// What the transport's head and, for a download, its file make of the answer.
    enum HeadEvent {
        /// The head arrived; `redirect` is the request the redirect policy follows it with, if any.
        case head(ResponseHead, redirect: OutgoingRequest?, now: ContinuousClock.Instant)
        /// The download's file answered the head (after `beginFile`).
        case fileBegan(PartialDownload.Start)
    }

    /// What to do after a head event. The driver reports a head to the request and the monitors
    /// unless the action is `followRedirect`, then carries the action out.
    enum HeadAction: Equatable {
        /// A redirect to follow: tell nobody, drop its body.
        case followRedirect
        /// The body goes to memory.
        case receive
        /// Open the download's file with the head, then report how it began (`fileBegan`).
        case beginFile
        /// Begin the stream's body.
        case beginStream
        /// Stop the request: the body (as announced, or as the file would grow) is over the limit.
        case tooLarge(limit: Int64)
        /// The file takes the body: report progress against `total`.
        case writeFile(total: Int64?)
        /// Cancel the transfer: the download's file must start again from zero.
        case cancelTransfer
        /// Nothing more: the answer stays in memory, as the error it is.
        case keepInMemory
    }

    /// Feeds one event of the head's family.
    mutating func receive(_ event: HeadEvent) -> HeadAction {
        switch event {
        case .head(let head, let redirect, let now):
            receive(head: head, redirect: redirect, now: now)
        case .fileBegan(let start):
            fileBegan(start)
        }
    }

    private mutating func receive(head: ResponseHead, redirect: OutgoingRequest?, now: ContinuousClock.Instant) -> HeadAction {
        lastActivity = now
        // A head once the body was stopped (an idle timeout that fired first) is reported, and its body dropped.
        guard phase == .awaitingHead else { return .receive }
        if let redirect {
            outcome.redirect = redirect
            outcome.redirectHead = head
            phase = .redirecting
            return .followRedirect
        }
        outcome.head = head
        if let coding = head.contentCoding {
            limit = min(sizeLimit ?? .max, decompressionLimit)
            if !transportDecodes { inflater = StreamingInflater(coding: coding) }
        } else {
            limit = sizeLimit
        }
        if destination == .file {
            phase = .awaitingFile
            return .beginFile
        }
        if let limit, let announced = head.deliveredLength, announced > limit {
            phase = .stopped
            return .tooLarge(limit: limit)
        }
        if case .stream(let accepting) = destination {
            guard accepting.contains(head.status.code), head.status != .noContent else {
                phase = .errorBody
                return .receive
            }
            phase = .streaming
            return .beginStream
        }
        phase = .inMemory
        return .receive
    }

    private mutating func fileBegan(_ start: PartialDownload.Start) -> HeadAction {
        guard phase == .awaitingFile else {
            broken("fileBegan")
            return .keepInMemory
        }
        switch start {
        case .write(let total):
            if let limit, let total, total > limit {
                phase = .stopped
                return .tooLarge(limit: limit)
            }
            phase = .toFile
            return .writeFile(total: total)
        case .restart(let reason):
            outcome.restartReason = reason
            phase = .stopped
            cancelRequested = true
            return .cancelTransfer
        case .notFile:
            phase = .errorBody
            return .keepInMemory
        }
    }
}

// MARK: - The body

extension Transfer.StateMachine {
    /// A piece of the body.
    enum BodyEvent {
        /// A chunk as the transport delivered it.
        case chunk(Data, now: ContinuousClock.Instant)
        /// A piece the inflater made of the chunks (after `inflate`).
        case inflated(Data, now: ContinuousClock.Instant)
        /// A piece of `count` bytes went to the download's file, which is now `fileLength` long.
        case wroteToFile(count: Int, fileLength: Int64)

        /// The bytes a chunk or an inflated piece brings; nil for a write to the file.
        var piece: Data? {
            switch self {
            case .chunk(let data, _), .inflated(let data, _): data
            case .wroteToFile: nil
            }
        }
    }

    /// What to do with a piece of the body.
    enum BodyAction: Equatable {
        /// Inflate the chunk with this inflater, and feed each piece it makes (`inflated`).
        case inflate(StreamingInflater)
        /// Kept in memory: report the body's length so far.
        case kept(Int64)
        /// Write it to the download's file, then report `wroteToFile`.
        case writeToFile
        /// Feed it to the stream's parser, and report the body's length so far.
        case feedStream(Int64)
        /// Written to the file: report the file's length.
        case written(Int64)
        /// Dropped: stopped already, a redirect's body, or enough of a download's error body.
        case dropped
        /// Refused, and the body stopped: it would pass this limit. Stop the request.
        case overLimit(Int64)
        /// A redirect's body too long to read to its end: cancel the transfer.
        case cancelTransfer

        static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.inflate(let a), .inflate(let b)): a === b
            case (.kept(let a), .kept(let b)), (.feedStream(let a), .feedStream(let b)), (.written(let a), .written(let b)),
                 (.overLimit(let a), .overLimit(let b)): a == b
            case (.writeToFile, .writeToFile), (.dropped, .dropped), (.cancelTransfer, .cancelTransfer): true
            default: false
            }
        }
    }

    /// Feeds one event of the body's family.
    mutating func receive(_ event: BodyEvent) -> BodyAction {
        switch event {
        case .chunk(let chunk, let now):
            lastActivity = now
            if let inflater, phase != .stopped, phase != .completed { return .inflate(inflater) }
            return take(chunk)
        case .inflated(let piece, let now):
            lastActivity = now
            return take(piece)
        case .wroteToFile(let count, let fileLength):
            outcome.bytesReceived += Int64(count)
            if let limit, fileLength > limit {
                stop()
                return .overLimit(limit)
            }
            return .written(fileLength)
        }
    }

    /// A piece of the body as delivered (inflated when it was encoded).
    private mutating func take(_ piece: Data) -> BodyAction {
        let count = Int64(piece.count)
        switch phase {
        case .awaitingHead, .awaitingFile, .stopped, .completed:
            return .dropped
        case .redirecting:
            discarded += count
            guard discarded > Self.redirectBodyLimit else { return .dropped }
            phase = .stopped
            cancelRequested = true
            return .cancelTransfer
        case .toFile:
            return .writeToFile
        case .streaming:
            if let limit, outcome.bytesReceived + count > limit {
                stop()
                return .overLimit(limit)
            }
            outcome.bytesReceived += count
            return .feedStream(outcome.bytesReceived)
        case .errorBody:
            guard Int64(outcome.body.count) + count <= Self.errorBodyLimit else { return .dropped }
            outcome.keep(piece)
            outcome.bytesReceived = Int64(outcome.body.count)
            return .kept(outcome.bytesReceived)
        case .inMemory:
            if let limit, Int64(outcome.body.count) + count > limit {
                stop()
                return .overLimit(limit)
            }
            outcome.keep(piece)
            outcome.bytesReceived = Int64(outcome.body.count)
            return .kept(outcome.bytesReceived)
        }
    }
}

// MARK: - Control

extension Transfer.StateMachine {
    /// What happens to the transfer besides its answer.
    enum ControlEvent {
        /// The transport handed the transfer back (`Transfer` keeps its task).
        case attached
        /// Upload progress: the transfer is not idle.
        case sent(bytes: Int64, now: ContinuousClock.Instant)
        /// A stream's transport waits for its consumers (true), or reads on: the wait is not idle time.
        case paused(Bool, now: ContinuousClock.Instant)
        /// The idle watch's check at `now`: the transfer fails with the idle timeout's error when
        /// nothing moved for that long.
        case idleCheck(now: ContinuousClock.Instant)
        /// The transfer fails (not the request: a retry may follow) with this error, whatever the
        /// transport completes with.
        case failed(NetworkError)
        /// The request stops for a limit or a file error: the body is no longer taken.
        case stopped
    }

    /// What to do after a control event.
    enum ControlAction: Equatable {
        case none
        /// Cancel the transfer's task (if the transport has not handed it back yet, `attached`
        /// says so once it has).
        case cancelTransfer
    }

    /// Feeds one event of the control family.
    mutating func receive(_ event: ControlEvent) -> ControlAction {
        switch event {
        case .attached:
            return cancelRequested && phase != .completed ? .cancelTransfer : .none
        case .sent(let bytes, let now):
            lastActivity = now
            outcome.bytesSent = bytes
            return .none
        case .paused(let paused, let now):
            isPaused = paused
            lastActivity = now
            return .none
        case .idleCheck(let now):
            guard let idleTimeout, !isPaused, idleTimeout.isReached(by: lastActivity.duration(to: now)) else { return .none }
            return fail(.transport(idleTimeout.error))
        case .failed(let error):
            return fail(error)
        case .stopped:
            stop()
            return .none
        }
    }

    /// Stops taking the body: later chunks are dropped.
    private mutating func stop() {
        if phase != .completed { phase = .stopped }
        outcome.body = Data()
    }

    /// Fails the transfer with `error`, once and before it completed.
    private mutating func fail(_ error: NetworkError) -> ControlAction {
        guard failure == nil, phase != .completed, !isFinishingInflation else { return .none }
        failure = error
        stop()
        cancelRequested = true
        return .cancelTransfer
    }
}

// MARK: - The completion

extension Transfer.StateMachine {
    /// The end of the transfer.
    enum CompletionEvent {
        /// The transport completed, with `failure` or none.
        case transportCompleted(failure: NetworkError?)
        /// The inflater's last check of the body (after `finishInflating`): a truncated or corrupt
        /// stream's error, or none.
        case inflaterFinished(failure: NetworkError?)
    }

    /// What to do at the end.
    enum CompletionAction {
        /// Check that the inflated stream ended where the body did, then report `inflaterFinished`.
        case finishInflating(StreamingInflater)
        /// Hand this outcome to the waiting pipeline.
        case hand(TransferOutcome)
    }

    /// Feeds one event of the completion's family.
    mutating func receive(_ event: CompletionEvent) -> CompletionAction {
        switch event {
        case .transportCompleted(let transportFailure):
            guard phase != .completed, !isFinishingInflation else {
                broken("transportCompleted")
                return .hand(TransferOutcome(error: .cancelled))
            }
            // A body refused on the way (a limit) is not checked to its end.
            if transportFailure == nil, failure == nil, phase != .stopped, let inflater {
                isFinishingInflation = true
                return .finishInflating(inflater)
            }
            return .hand(complete(failure: transportFailure))
        case .inflaterFinished(let inflaterFailure):
            guard isFinishingInflation else {
                broken("inflaterFinished")
                return .hand(TransferOutcome(error: .cancelled))
            }
            isFinishingInflation = false
            if failure == nil { failure = inflaterFailure }
            return .hand(complete(failure: nil))
        }
    }

    /// The outcome to hand the pipeline. A failure the kit decided wins over the transport's; a
    /// redirect whose body was dropped completes it.
    private mutating func complete(failure transportFailure: NetworkError?) -> TransferOutcome {
        var ended = outcome
        if let failure {
            ended.error = failure
        } else if outcome.redirect != nil {
            ended.error = nil
        } else {
            ended.error = transportFailure
        }
        outcome = TransferOutcome()
        inflater = nil
        phase = .completed
        return ended
    }

    /// An event the phase does not wait for: a bug in the driver (see the type's documentation).
    private mutating func broken(_ event: StaticString) {
        let transition = "\(event) while \(phase)"
        if brokenTransition == nil { brokenTransition = transition }
        if assertsOnBrokenTransition { assertionFailure("the transfer got \(transition)") }
    }
}
