import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt's transfer: hears the transport's events for it, keeps the response head and
/// the body (in memory, or in the download's partial file), enforces the size limit, reports
/// progress to the request and the head to the monitors, and hands the outcome to the waiting
/// pipeline when the transfer ends.
final class Exchange: TransportEvents {
    /// How the transfer ended.
    typealias Outcome = TransferOutcome

    /// Error bodies of downloads stay in memory: this much of them is kept.
    private static var errorBodyLimit: Int64 { 1 << 20 }

    private let request: AnyRequest
    private let attempt: Int
    private let monitors: [any EventMonitor]
    private let redirects: RedirectPolicy
    /// Where the attempt was sent, to tell redirects to another origin.
    private let origin: URL?
    /// The most body bytes to take, if there is a limit.
    private let sizeLimit: Int64?
    /// The most bytes a content-encoded body may inflate to (the service's `maxDecompressedBytes`).
    private let decompressionLimit: Int64
    /// Where a download's body goes.
    private let file: PartialDownload?
    private let state: Protected<ExchangeState>

    init(request: AnyRequest, attempt: Int, monitors: [any EventMonitor], redirects: RedirectPolicy, origin: URL?,
         sizeLimit: Int64?, decompressionLimit: Int, file: PartialDownload?,
         continuation: CheckedContinuation<Outcome, Never>) {
        self.request = request
        self.attempt = attempt
        self.monitors = monitors
        self.redirects = redirects
        self.origin = origin
        self.sizeLimit = sizeLimit
        self.decompressionLimit = Int64(decompressionLimit)
        self.file = file
        state = Protected(ExchangeState(outcome: Outcome(), continuation: continuation))
    }

    /// Keeps the transfer so the exchange can stop it itself (a download that must restart).
    func attach(_ task: any TransportTask) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.cancelWhenAttached
        }
        if cancelNow { task.cancel() }
    }

    func transportWillRedirect(to proposed: URLRequest, response: ResponseHead) -> URLRequest? {
        redirects.next(proposed, after: response, original: origin)
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        state.withLock { $0.outcome.bytesSent = bytes }
        request.didSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        // A body that arrives content-encoded is inflated by the transport (libcurl, or the kit's
        // streaming inflater), so what is delivered is the inflated size: both limits apply to it.
        let sizeLimit = head.contentCoding != nil ? min(self.sizeLimit ?? .max, decompressionLimit) : self.sizeLimit
        state.withLock {
            $0.outcome.head = head
            $0.outcome.body = Data()
            $0.limit = sizeLimit
        }
        request.didReceive(head: head)
        for monitor in monitors { monitor.request(request.id, didReceive: head, attempt: attempt) }
        if let file {
            startFile(file, head: head)
        } else if let sizeLimit, let announced = head.deliveredLength, announced > sizeLimit {
            stopTransfer(.responseTooLarge(limit: sizeLimit))
        }
    }

    /// A download's head: open its file, or restart, or keep an error body in memory.
    private func startFile(_ file: PartialDownload, head: ResponseHead) {
        do {
            switch try file.begin(head) {
            case .write(let total):
                if let sizeLimit, let total, total > sizeLimit {
                    return stopTransfer(.responseTooLarge(limit: sizeLimit))
                }
                state.withLock { $0.writesToFile = true }
                request.expectBody(total: total)
            case .restart(let reason):
                let task = state.withLock { state -> (any TransportTask)? in
                    state.outcome.restartReason = reason
                    state.stopped = true
                    if state.task == nil { state.cancelWhenAttached = true }
                    return state.task
                }
                task?.cancel()
            case .notFile:
                break
            }
        } catch {
            stopTransfer(error)
        }
    }

    func transportDidReceive(chunk: Data) {
        let taken = state.withLock { state -> TakenChunk in
            guard !state.stopped else { return .dropped }
            if state.writesToFile { return .toFile }
            let limit = file == nil ? state.limit : Self.errorBodyLimit
            if let limit, Int64(state.outcome.body.count + chunk.count) > limit {
                return file == nil ? .overLimit(limit) : .dropped
            }
            state.outcome.body.append(chunk)
            state.outcome.bytesReceived = Int64(state.outcome.body.count)
            return .bytes(Int64(state.outcome.body.count))
        }
        switch taken {
        case .bytes(let received):
            request.didReceive(bodyBytes: received)
        case .toFile:
            writeToFile(chunk)
        case .dropped:
            break
        case .overLimit(let limit):
            stopTransfer(.responseTooLarge(limit: limit))
        }
    }

    /// Writes a download's chunk (on the transport's context: the file is written as bytes
    /// arrive, nothing accumulates in memory).
    private func writeToFile(_ chunk: Data) {
        guard let file else { return }
        do {
            let length = try file.write(chunk)
            let sizeLimit = state.withLock { state in
                state.outcome.bytesReceived += Int64(chunk.count)
                return state.limit
            }
            if let sizeLimit, length > sizeLimit { return stopTransfer(.responseTooLarge(limit: sizeLimit)) }
            request.didReceive(bodyBytes: length)
        } catch {
            stopTransfer(error)
        }
    }

    /// Stops the transfer for a limit or a file error: the request lands with `error`, whatever
    /// the transport reports after its cancellation.
    private func stopTransfer(_ error: NetworkError) {
        state.withLock { $0.stopped = true; $0.outcome.body = Data() }
        request.stop(with: error)
    }

    func transportDidComplete(error: (any Error)?) {
        let (outcome, continuation) = state.withLock { state in
            state.outcome.error = error
            defer { state.continuation = nil; state.outcome = Outcome(); state.task = nil }
            return (state.outcome, state.continuation)
        }
        continuation?.resume(returning: outcome)
    }
}

/// How a transfer ended.
struct TransferOutcome: Sendable {
    var head: ResponseHead?
    /// The body, unless it went to a download's file.
    var body = Data()
    /// Body bytes received in this attempt (in memory or on disk).
    var bytesReceived: Int64 = 0
    var bytesSent: Int64 = 0
    var error: (any Error)?
    /// Set when a download's answer could not continue its partial file: start again from zero.
    var restartReason: String?
}

/// An exchange's mutable state, guarded by its lock.
struct ExchangeState {
    var outcome: TransferOutcome
    var continuation: CheckedContinuation<TransferOutcome, Never>?
    /// The most body bytes to take, once the head said whether the body is content-encoded.
    var limit: Int64?
    /// Set once the transfer was stopped: later chunks are dropped.
    var stopped = false
    /// True while the body goes to the download's file.
    var writesToFile = false
    /// The transfer, once the transport has handed it back, and whether to cancel it then.
    var task: (any TransportTask)?
    var cancelWhenAttached = false
}

/// What became of a body chunk.
private enum TakenChunk {
    /// Kept in memory: the body is now this long.
    case bytes(Int64)
    /// For the download's file.
    case toFile
    /// Dropped: the transfer was stopped already, or an error body is long enough.
    case dropped
    /// Refused: it would pass this limit.
    case overLimit(Int64)
}
