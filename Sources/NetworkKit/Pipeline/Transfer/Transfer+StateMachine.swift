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
    /// One transfer's bookkeeping as a state machine: the transport's events come in, the actions
    /// for `Transfer` to take come back. It holds no lock and does no I/O, so its rules (limits,
    /// redirects, downloads' error bodies, the idle timeout) are tested as tables
    /// (`TransferStateMachineTests`).
    ///
    ///     awaitingHead ──head──▶ inMemory | toFile | streaming | errorBody | redirecting
    ///     any ──limit, file error, bad encoding, idle, restart──▶ stopped
    struct StateMachine {
        /// Where the body goes.
        enum Phase: Equatable {
            case awaitingHead
            /// The answer is a redirect the policy follows: its body is read and dropped, up to
            /// `redirectBodyLimit`, so the connection can carry the next request.
            case redirecting
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
        /// Bytes of a redirect's body dropped so far.
        private var discarded: Int64 = 0
        /// Replaces whatever error the transport completes with (the idle timeout, a bad encoding).
        private var failure: NetworkError?
        /// The transfer, once the transport has handed it back, and whether to cancel it then.
        private var task: (any TransportTask)?
        private var cancelWhenAttached = false
        /// Set once the transport completed: nothing more happens to this transfer.
        private var isComplete = false
        /// When the transfer last received or sent a byte.
        private var lastActivity: ContinuousClock.Instant
        /// True while a stream's transport waits for its consumers: not idle by the server's doing.
        private var isPaused = false
        private let idleTimeout: IdleTimeout?

        /// A transfer that fails when idle for `idleTimeout` (never when nil), started at `now`.
        init(idleTimeout: IdleTimeout?, now: ContinuousClock.Instant) {
            self.idleTimeout = idleTimeout
            lastActivity = now
        }
    }
}

// MARK: - Events

extension Transfer.StateMachine {
    /// What to do with a response head.
    enum HeadAction: Equatable {
        /// A redirect to follow: tell nobody, drop its body.
        case followRedirect
        /// Report the head; the body goes to memory.
        case receive
        /// Report the head; then ask the download's file whether it continues (`fileBegan`).
        case beginFile
        /// Report the head; then begin the stream's body.
        case beginStream
        /// Report the head; then stop the request: the announced body is over the limit.
        case tooLarge(limit: Int64)
    }

    /// The head arrived. `redirect` is the request the policy follows it with, if any; content-
    /// encoded bodies count against `decompressionLimit` too, as they are delivered inflated.
    mutating func receive(head: ResponseHead, redirect: OutgoingRequest?, sizeLimit: Int64?, decompressionLimit: Int64,
                          destination: Destination, now: ContinuousClock.Instant) -> HeadAction {
        lastActivity = now
        guard phase == .awaitingHead else { return .receive }
        if let redirect {
            outcome.redirect = redirect
            outcome.redirectHead = head
            phase = .redirecting
            return .followRedirect
        }
        outcome.head = head
        limit = head.contentCoding != nil ? min(sizeLimit ?? .max, decompressionLimit) : sizeLimit
        if destination == .file { return .beginFile }
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

    /// What the download's file made of the head.
    enum FileAction: Equatable {
        /// Write the body to it, and report progress against `total`.
        case write(total: Int64?)
        /// Stop the request: the file would pass the limit.
        case tooLarge(limit: Int64)
        /// Cancel the transfer (`cancel`: now, or when the transport hands it back): the file must
        /// start again from zero.
        case restart(cancelNow: Bool)
        /// Keep the answer in memory: it is not the file.
        case keepInMemory
    }

    mutating func fileBegan(_ start: PartialDownload.Start) -> (FileAction, (any TransportTask)?) {
        switch start {
        case .write(let total):
            if let limit, let total, total > limit {
                phase = .stopped
                return (.tooLarge(limit: limit), nil)
            }
            phase = .toFile
            return (.write(total: total), nil)
        case .restart(let reason):
            outcome.restartReason = reason
            phase = .stopped
            let task = transferToCancel()
            return (.restart(cancelNow: task != nil), task)
        case .notFile:
            phase = .errorBody
            return (.keepInMemory, nil)
        }
    }

    /// What became of a body chunk.
    enum ChunkAction: Equatable {
        /// Kept in memory: the body is now this long.
        case kept(Int64)
        /// For the download's file.
        case toFile
        /// For the stream's parser: the body is now this long.
        case toStream(Int64)
        /// Dropped: stopped already, a redirect's body, or enough of a download's error body.
        case dropped
        /// Refused: it would pass this limit. The request is to stop.
        case overLimit(Int64)
        /// A redirect's body too long to read to its end: cancel the transfer.
        case cancelTransfer
    }

    mutating func take(_ chunk: Data, now: ContinuousClock.Instant) -> ChunkAction {
        lastActivity = now
        let count = Int64(chunk.count)
        switch phase {
        case .awaitingHead, .stopped:
            return .dropped
        case .redirecting:
            discarded += count
            guard discarded > Self.redirectBodyLimit else { return .dropped }
            phase = .stopped
            return .cancelTransfer
        case .toFile:
            return .toFile
        case .streaming:
            if let limit, outcome.bytesReceived + count > limit {
                stop()
                return .overLimit(limit)
            }
            outcome.bytesReceived += count
            return .toStream(outcome.bytesReceived)
        case .errorBody:
            guard Int64(outcome.body.count) + count <= Self.errorBodyLimit else { return .dropped }
            outcome.keep(chunk)
            outcome.bytesReceived = Int64(outcome.body.count)
            return .kept(outcome.bytesReceived)
        case .inMemory:
            if let limit, Int64(outcome.body.count) + count > limit {
                stop()
                return .overLimit(limit)
            }
            outcome.keep(chunk)
            outcome.bytesReceived = Int64(outcome.body.count)
            return .kept(outcome.bytesReceived)
        }
    }

    /// A chunk of `count` bytes went to the file, which is now `fileLength` long; returns the
    /// limit it passed, if it did.
    mutating func wroteToFile(count: Int, fileLength: Int64) -> Int64? {
        outcome.bytesReceived += Int64(count)
        guard let limit, fileLength > limit else { return nil }
        stop()
        return limit
    }

    /// Upload progress: the transfer is not idle.
    mutating func sent(bytes: Int64, now: ContinuousClock.Instant) {
        lastActivity = now
        outcome.bytesSent = bytes
    }

    /// A stream's transport waits for its consumers (`paused`), or reads on: the wait does not
    /// count as idle time.
    mutating func pause(_ paused: Bool, now: ContinuousClock.Instant) {
        isPaused = paused
        lastActivity = now
    }

    /// Stops taking the body (a limit, a file error): later chunks are dropped.
    mutating func stop() {
        phase = .stopped
        outcome.body = Data()
    }

    /// Stops the transfer for `error`, which the outcome reports whatever the transport completes
    /// with; returns the transfer to cancel, if it was handed back (else it is cancelled then).
    mutating func fail(_ error: NetworkError) -> (any TransportTask)? {
        guard failure == nil, !isComplete else { return nil }
        failure = error
        stop()
        return transferToCancel()
    }

    /// The transfer to cancel now; nil when the transport has not handed it back yet, and then it
    /// is cancelled as it is (`attach`).
    mutating func transferToCancel() -> (any TransportTask)? {
        if task == nil { cancelWhenAttached = true }
        return task
    }

    /// Fails the transfer with the idle timeout's error (a `.timedOut` failure) when nothing
    /// moved for that long by `now`; returns whether it did, and the transfer to cancel.
    mutating func checkIdle(now: ContinuousClock.Instant) -> (timedOut: Bool, task: (any TransportTask)?) {
        guard let idleTimeout, failure == nil, !isComplete, !isPaused, idleTimeout.isReached(by: lastActivity.duration(to: now)) else {
            return (false, nil)
        }
        return (true, fail(.transport(idleTimeout.error)))
    }

    /// The transport handed the transfer back: returns true when it must be cancelled at once.
    mutating func attach(_ task: any TransportTask) -> Bool {
        self.task = task
        return cancelWhenAttached
    }

    /// The transport completed with `failure`: the outcome to hand the pipeline. A failure the
    /// kit decided wins over the transport's; a redirect whose body was dropped completes it.
    mutating func complete(failure transportFailure: NetworkError?) -> TransferOutcome {
        var ended = outcome
        if let failure {
            ended.error = failure
        } else if outcome.redirect != nil {
            ended.error = nil
        } else {
            ended.error = transportFailure
        }
        outcome = TransferOutcome()
        task = nil
        phase = .stopped
        isComplete = true
        return ended
    }
}
