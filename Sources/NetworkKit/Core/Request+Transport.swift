import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `start` found the request.
enum StartOutcome {
    case started
    case cancelledBeforeStart
    case alreadyStarted
}

extension Request: TransportClient {
    /// Moves ready → running and records where to land. Only the first start counts.
    func begin(_ landing: Landing) -> StartOutcome {
        let outcome = life.withLock { life -> StartOutcome in
            guard life.landing == nil else { return .alreadyStarted }
            life.landing = landing
            if life.cancelRequested { return .cancelledBeforeStart }
            life.state = .running
            return .started
        }
        if outcome == .started { notifyState(.running) }
        return outcome
    }

    /// Attaches the task and registers it, unless the request was cancelled meanwhile.
    func attach(_ task: URLSessionTask, register: () -> Void) -> Bool {
        life.withLock { life in
            guard !life.cancelRequested, life.result == nil else { return false }
            life.task = task
            register()
            return true
        }
    }

    func transportDidReceive(response: URLResponse) {
        life.withLock { life in
            life.response = response as? HTTPURLResponse
            life.body = Data()
        }
    }

    func transportDidReceive(data: Data) {
        let report = life.withLock { life -> Lifecycle<Output>.ProgressReport? in
            guard life.result == nil else { return nil }
            life.body.append(data)
            return life.progressReport(throttle: \.downloadThrottle) {
                TransferProgress(direction: .download, completedBytes: Int64($0.body.count),
                                 totalBytes: Self.expectedLength(of: $0.response))
            }
        }
        if let report { deliver(report) }
    }

    func transportDidSend(totalBytes: Int64, expected: Int64) {
        let report = life.withLock { life -> Lifecycle<Output>.ProgressReport? in
            guard life.result == nil else { return nil }
            return life.progressReport(throttle: \.uploadThrottle) { _ in
                TransferProgress(direction: .upload, completedBytes: totalBytes, totalBytes: expected > 0 ? expected : nil)
            }
        }
        if let report { deliver(report) }
    }

    func transportDidComplete(error: (any Error)?) {
        transportDidComplete(response: nil, body: nil, error: error)
    }

    /// The end of a transfer. A completion-handler task hands over the response head and the
    /// whole body here; a delegate-style task has collected them in `life` as they came.
    func transportDidComplete(response head: URLResponse?, body collected: Data?, error: (any Error)?) {
        let finished = life.withLock { life -> (HTTPURLResponse?, Data, Landing)? in
            guard life.result == nil, let landing = life.landing else { return nil }
            if let head = head as? HTTPURLResponse { life.response = head }
            let body = collected ?? life.body
            life.body = Data()
            return (life.response, body, landing)
        }
        guard let (response, body, landing) = finished else { return }
        if let error {
            finish(.failure(NetworkError.wrap(error)))
            return
        }
        guard let response else {
            finish(.failure(.transport(URLError(.badServerResponse))))
            return
        }
        reportFinalProgress(bodyCount: body.count)
        let parser = self.parser
        let parse: @Sendable () -> Void = {
            self.finish(ResponsePipeline.run(Response(response, data: body), landing: landing, parser: parser))
        }
        if parser.isLightweight && body.count <= ParsingQueue.inlineBodyLimit {
            // Already on the session's delegate queue, which targets the parsing queue:
            // a light parse of a small body runs right here and saves a thread hop.
            parse()
        } else {
            ParsingQueue.shared.async(execute: parse)
        }
    }

    /// True when the transfer must report as it goes (progress handlers were added before
    /// start). Otherwise the service gives the request a completion-handler task, which
    /// FoundationNetworking finishes in one delegate-queue operation instead of one per event.
    var wantsTransferEvents: Bool {
        life.withLock { !$0.progressHandlers.isEmpty }
    }

    /// Makes sure a download progress handler sees 100% before completion.
    private func reportFinalProgress(bodyCount: Int) {
        let report = life.withLock { life in
            life.progressReport(throttle: \.downloadThrottle) { _ in
                TransferProgress(direction: .download, completedBytes: Int64(bodyCount), totalBytes: Int64(bodyCount))
            }
        }
        if let report { deliver(report) }
    }

    private func deliver(_ report: Lifecycle<Output>.ProgressReport) {
        // The callback queue runs this before the landing block queued later, so progress
        // never follows completion.
        let (progress, handlers, queue) = report
        queue.async { for handler in handlers { handler(self, progress) } }
    }

    private func notifyState(_ state: RequestState) {
        let (handlers, queue) = life.withLock { ($0.stateHandlers, $0.landing?.callbackQueue) }
        guard !handlers.isEmpty, let queue else { return }
        queue.async { for handler in handlers { handler(self, state) } }
    }

    /// The announced body length, unless the body is content-encoded: libcurl inflates it on the
    /// way in, so `Content-Length` counts bytes that are never delivered as such.
    private static func expectedLength(of response: HTTPURLResponse?) -> Int64? {
        guard let response, response.expectedContentLength > 0,
              response.value(forHTTPHeaderField: "Content-Encoding") == nil else { return nil }
        return response.expectedContentLength
    }
}
