import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of a ``StubTransport``, run in a task of its own: records the request, reports
/// upload progress, follows redirects as the events allow, and plays the answer's head and
/// chunks with its delays and fault. Its task reports the one completion.
struct StubTransfer: Sendable {
    /// As many redirects as a transfer follows before it fails, as with the real transports.
    static let maxRedirects = 16
    /// The upload progress step, as the NIO transport sends a body.
    static let uploadPiece = 64 * 1024

    let transport: StubTransport
    let events: any TransportEvents

    /// Plays the transfer and returns the error to complete with (nil on success).
    func run(_ request: URLRequest, bodyFile: URL?) async -> (any Error)? {
        do {
            try await send(request, body: try Self.body(of: request, file: bodyFile))
            return nil
        } catch let error as URLError {
            return error
        } catch {
            // CancellationError from a sleep or a check: reported as the real transports do.
            return URLError(.cancelled)
        }
    }

    /// The body to send: the file's contents when given, else the request's `httpBody`.
    private static func body(of request: URLRequest, file: URL?) throws -> Data {
        guard let file else { return request.httpBody ?? Data() }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "StubTransport cannot read the body file \(file.path): \(error)"])
        }
    }

    private func send(_ request: URLRequest, body: Data) async throws {
        var request = request, body = body
        for _ in 0...Self.maxRedirects {
            try Task.checkCancellation()
            let recorded = RecordedRequest(request: request, body: body)
            let response: StubResponse
            switch transport.receive(recorded) {
            case .success(let answer): response = answer
            case .failure(let unmatched): throw unmatched.urlError
            }
            try reportUpload(of: body)
            let timeout = request.timeoutInterval > 0 ? Duration.milliseconds(Int64(request.timeoutInterval * 1000)) : nil
            try await wait(response.headDelay, timeout: timeout)
            switch response.fault {
            case .failure(let error): throw error
            case .timeOut(.none): try await wait(nil, timeout: timeout)
            default: break
            }
            let head = ResponseHead(url: request.url, statusCode: response.status, headers: response.sentHeaders)
            if let proposed = Self.redirect(after: request, head: head),
               let next = events.transportWillRedirect(to: proposed, response: head) {
                if next.httpMethod != request.httpMethod { body = next.httpBody ?? Data() }
                request = next
                continue
            }
            events.transportDidReceive(head: head)
            return try await deliverBody(of: response, head: head, method: recorded.method, timeout: timeout)
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// Reports the body as sent, in pieces, with its total.
    private func reportUpload(of body: Data) throws {
        let total = Int64(body.count)
        for sent in stride(from: Self.uploadPiece, to: body.count + Self.uploadPiece, by: Self.uploadPiece) {
            try Task.checkCancellation()
            events.transportDidSend(bytes: min(Int64(sent), total), of: total)
        }
    }

    /// Delivers the body's chunks with their delays (none for a `HEAD`), inflated when the head
    /// names a content coding, then fails as the fault says.
    private func deliverBody(of response: StubResponse, head: ResponseHead, method: String, timeout: Duration?) async throws {
        let chunks = method == "HEAD" ? [] : response.sentChunks
        let inflater = head.contentCoding.map { StreamingInflater(coding: $0) }
        for (index, chunk) in chunks.enumerated() {
            if index > 0 { try await wait(response.chunkDelay, timeout: timeout) }
            try Task.checkCancellation()
            guard let inflater else {
                events.transportDidReceive(chunk: chunk)
                continue
            }
            try Self.decoding {
                try inflater.inflate(chunk) { piece in
                    try Task.checkCancellation()
                    events.transportDidReceive(chunk: piece)
                }
            }
        }
        switch response.fault {
        case .dropConnection(let bytes):
            throw ServerFault.closedEarly.urlError("StubTransport dropped the connection after \(bytes) of \(response.body.count) bytes")
        case .timeOut:
            try await wait(nil, timeout: timeout)
        case .failure, .none:
            if method != "HEAD", let inflater { try Self.decoding { try inflater.finish() } }
        }
    }

    /// Waits `duration` (forever when nil), failing with `URLError(.timedOut)` when that is
    /// `timeout` or longer: the time nothing arrives that a real transport's idle timeout allows.
    private func wait(_ duration: Duration?, timeout: Duration?) async throws {
        if let timeout, duration.map({ $0 >= timeout }) ?? true {
            try await transport.sleep(timeout)
            throw URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "StubTransport: nothing arrived for \(timeout)"])
        }
        if let duration, duration > .zero {
            try await transport.sleep(duration)
        } else if duration == nil {
            // No timeout and no end: silent until cancelled.
            while true { try await transport.sleep(.seconds(3600)) }
        }
    }

    /// Runs `inflating`, a corrupt or cut stream reported as the real transports report one.
    private static func decoding(_ inflating: () throws -> Void) throws {
        do {
            try inflating()
        } catch let error as ParseError where error.parser == "decompress" {
            throw ServerFault.badContentEncoding.urlError("StubTransport: \(error.reason)")
        }
    }

    /// The request a redirect in `head` proposes, as URLSession builds it, or nil when `head` is
    /// none: the `Location` resolved against the request's URL; a `303`, and a `301` or `302`
    /// after a `POST`, continue as a body-less `GET`; `307` and `308` keep method and body.
    static func redirect(after request: URLRequest, head: ResponseHead) -> URLRequest? {
        let status = head.statusCode
        guard [301, 302, 303, 307, 308].contains(status), let location = head.header("Location"),
              let url = URL(string: location, relativeTo: request.url)?.absoluteURL,
              ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        var next = request
        next.url = url
        let method = request.httpMethod?.uppercased() ?? "GET"
        guard (status == 303 && method != "HEAD") || (status <= 302 && method == "POST") else { return next }
        next.httpMethod = "GET"
        next.httpBody = nil
        ["Content-Type", "Content-Length", "Content-Encoding"].forEach { next.setValue(nil, forHTTPHeaderField: $0) }
        return next
    }
}
