#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of the NIO transport, run in a task of its own: sends the request (following
/// redirects as the events allow), and streams the head and the body, inflated when it is
/// content-encoded. Its task reports the one completion.
struct NIOTransfer: Sendable {
    /// As many redirects as a transfer follows before it fails (URLSession's limit on Linux is 16 too).
    static let maxRedirects = 16

    let client: HTTPClient
    let events: any TransportEvents
    let timer: IdleTimer

    /// Sends `request` and reports everything to the events but the completion: returns the
    /// error to complete with (nil on success), so the caller can finish its own bookkeeping
    /// before the waiting pipeline resumes.
    func run(_ request: URLRequest, bodyFile: URL?) async -> (any Error)? {
        do {
            try await send(request, body: UploadBody(request: request, file: bodyFile))
            return nil
        } catch {
            return NIOErrors.urlError(for: error, timedOut: timer.didFire)
        }
    }

    private func send(_ request: URLRequest, body: UploadBody?) async throws {
        var request = request, body = body
        for _ in 0...Self.maxRedirects {
            try Task.checkCancellation()
            let response = try await client.execute(try clientRequest(request, body: body), deadline: .distantFuture)
            timer.touch()
            let head = ResponseHead(url: request.url, status: response.status, headers: response.headers)
            if let proposed = Redirect.proposal(after: request, head: head) {
                if let next = events.transportWillRedirect(to: proposed, response: head) {
                    await Self.discard(response.body)
                    if next.httpMethod != request.httpMethod { body = UploadBody(request: next, file: nil) }
                    request = next
                    continue
                }
            }
            events.transportDidReceive(head: head)
            return try await receive(response.body, head: head)
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// The AsyncHTTPClient request for `request`: the same method, URL, headers and body, and
    /// `Accept-Encoding: gzip, deflate` unless the request says otherwise (as libcurl does).
    private func clientRequest(_ request: URLRequest, body: UploadBody?) throws -> HTTPClientRequest {
        guard let url = request.url else { throw URLError(.unsupportedURL, detail: "the request has no URL") }
        if let reason = url.unsupportedSchemeReason { throw URLError(.unsupportedURL, detail: reason) }
        var clientRequest = HTTPClientRequest(url: url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            clientRequest.headers.add(name: name, value: value)
        }
        if !clientRequest.headers.contains(name: "Accept-Encoding") {
            clientRequest.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        if let body {
            clientRequest.body = .stream(body.chunks(reportingTo: events, timer: timer), length: .known(body.length))
        }
        return clientRequest
    }

    /// Streams the body to the events, inflated when it is content-encoded.
    private func receive(_ body: HTTPClientResponse.Body, head: ResponseHead) async throws {
        let inflater = head.contentCoding.map { StreamingInflater(coding: $0) }
        for try await buffer in body {
            timer.touch()
            if let inflater {
                try Self.decoding {
                    try buffer.withUnsafeReadableBytes { bytes in
                        try inflater.inflate(bytes) { piece in
                            // A bomb inflates far more than it sends: stop as soon as the request is stopped.
                            try Task.checkCancellation()
                            events.transportDidReceive(chunk: piece)
                        }
                    }
                }
            } else if buffer.readableBytes < 16 * 1024 {
                // Copied through the raw bytes: `Data(buffer.readableBytesView)` goes the generic
                // sequence way, with dynamic casts, which cost more than the copy of a small chunk.
                events.transportDidReceive(chunk: buffer.withUnsafeReadableBytes { Data($0) })
            } else {
                events.transportDidReceive(chunk: Data(sharing: buffer))
            }
        }
        if let inflater { try Self.decoding { try inflater.finish() } }
    }

    /// Runs `inflating`, its corrupt or cut stream reported as URLSession reports one: a
    /// transport error (`cannotDecodeContentData`), not a parse error, since the parsers never saw
    /// the body.
    private static func decoding(_ inflating: () throws -> Void) throws {
        do {
            try inflating()
        } catch let error as ParseError where error.parser == "decompress" {
            throw ServerFault.badContentEncoding.urlError("NIO: \(error.reason)")
        }
    }

    /// Reads a redirect's body to its end so its connection can be used again, up to 1 MiB;
    /// a longer one is dropped with its connection.
    private static func discard(_ body: HTTPClientResponse.Body) async {
        var length = 0
        do {
            for try await buffer in body {
                length += buffer.readableBytes
                if length > 1 << 20 { return }
            }
        } catch {
            return
        }
    }
}

extension ResponseHead {
    /// The head of an AsyncHTTPClient response; repeated fields are joined with ", ".
    init(url: URL?, status: HTTPResponseStatus, headers: HTTPHeaders) {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            // One hash operation per field; a second only for a repeated one.
            if let earlier = fields.updateValue(value, forKey: name) { fields[name] = earlier + ", " + value }
        }
        self.init(url: url, statusCode: Int(status.code), headers: fields)
    }
}

extension Data {
    /// The readable bytes of `buffer` without copying them: the data keeps the buffer's storage
    /// alive until it is freed.
    init(sharing buffer: ByteBuffer) {
        self = buffer.withUnsafeReadableBytesWithStorageManagement { bytes, storage in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
            let retained = storage.retain()
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count,
                        deallocator: .custom { _, _ in retained.release() })
        }
    }
}
#endif
