import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Sends a request whose body is a ``RequestBodyStream``. URLSession takes no body from an
    /// asynchronous sequence (FoundationNetworking has no `uploadTask(withStreamedRequest:)` that
    /// works), so the chunks are written to a temporary file first, then the file is uploaded
    /// with its length, and removed when the transfer completes. The request's idle timeout runs
    /// while the file is written.
    func startStreamedBody(_ stream: RequestBodyStream, urlRequest: URLRequest, priority: RequestPriority,
                           events: any TransportEvents) -> any TransportTask {
        let upload = SpooledUpload()
        upload.begin(Task {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-stream-\(UUID().uuidString)")
            do {
                try await SpooledUpload.write(stream, to: file)
            } catch {
                try? FileManager.default.removeItem(at: file)
                events.transportDidComplete(failure: Task.isCancelled ? .cancelled : NetworkError.wrap(error))
                return
            }
            let task = session.uploadTask(with: urlRequest, fromFile: file)
            guard upload.send(task) else {
                try? FileManager.default.removeItem(at: file)
                events.transportDidComplete(failure: .cancelled)
                return
            }
            resume(task, priority: priority, events: SpooledUploadEvents(events, file: file))
        })
        return upload
    }
}

/// A transfer whose streamed body is being written to a file, then uploaded: cancelling it stops
/// whichever is under way.
private final class SpooledUpload: TransportTask {
    private enum State {
        case writing(Task<Void, Never>?)
        case sending(URLSessionTask)
        case cancelled
    }

    private let state = Protected(State.writing(nil))

    /// Keeps the task that writes the file, or cancels it when the transfer was cancelled first.
    func begin(_ writer: Task<Void, Never>) {
        let cancelled = state.withLock { state in
            guard case .writing = state else { return true }
            state = .writing(writer)
            return false
        }
        if cancelled { writer.cancel() }
    }

    /// Hands over the upload task once the file is written; false when the transfer was
    /// cancelled meanwhile (the task is not started).
    func send(_ task: URLSessionTask) -> Bool {
        state.withLock { state in
            guard case .writing = state else { return false }
            state = .sending(task)
            return true
        }
    }

    func cancel() {
        let previous = state.withLock { state in
            defer { if case .writing = state { state = .cancelled } }
            return state
        }
        switch previous {
        case .writing(let writer): writer?.cancel()
        case .sending(let task): task.cancel()
        case .cancelled: break
        }
    }

    /// Writes the chunks of `stream` to a new file at `file`.
    /// - Throws: the stream's ``NetworkError``, or a `.transport` failure when the file cannot be
    ///   written.
    static func write(_ stream: RequestBodyStream, to file: URL) async throws {
        var reader = try stream.makeReader()
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: file) else {
            throw NetworkError.failed(.cannotCreateFile, detail: "cannot write the streamed body to \(file.path)")
        }
        defer { try? handle.close() }
        while let chunk = try await reader.next() {
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw NetworkError.failed(.cannotWriteToFile, detail: "cannot write the streamed body to \(file.path): \(error)")
            }
        }
    }
}

/// A spooled upload's events: passed on as they come; the file is removed at the completion.
private final class SpooledUploadEvents: TransportEvents {
    private let events: any TransportEvents
    private let file: URL

    init(_ events: any TransportEvents, file: URL) {
        self.events = events
        self.file = file
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {
        events.transportDidSend(bytes: bytes, of: total)
    }

    func transportDidReceive(head: ResponseHead) {
        events.transportDidReceive(head: head)
    }

    func transportDidReceive(chunk: Data) {
        events.transportDidReceive(chunk: chunk)
    }

    func transportReadyForMoreBody() async {
        await events.transportReadyForMoreBody()
    }

    func transportDidComplete(failure: NetworkError?) {
        try? FileManager.default.removeItem(at: file)
        events.transportDidComplete(failure: failure)
    }
}
