import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of the NIO transport: sends the request through AsyncHTTPClient's delegate API
/// (following redirects as the events allow) and ends with exactly one completion.
///
/// The delegate API, not the async one: its callbacks run on the event loop that reads the
/// response, so a request costs no task of its own and no hop between threads beyond the event
/// loop's (with a task per transfer the kit measured 1.26× a bare AsyncHTTPClient's time per
/// sequential request; see "Choosing a transport").
final class NIOTransfer: Sendable {
    /// As many redirects as a transfer follows before it fails (URLSession's limit on Linux is 16 too).
    static let maxRedirects = 16

    private struct State {
        /// The request under way (the latest hop of a redirect chain).
        var task: HTTPClient.Task<HopEnd>?
        var cancelled = false
        var ended = false
        var hops = 0
    }

    private let client: HTTPClient
    let events: any TransportEvents
    let timer: IdleTimer
    /// Runs once the transfer has ended (the transport's bookkeeping).
    private let onEnd: @Sendable () -> Void
    private let state = NIOLockedValueBox(State())

    init(client: HTTPClient, events: any TransportEvents, timer: IdleTimer, onEnd: @escaping @Sendable () -> Void) {
        self.client = client
        self.events = events
        self.timer = timer
        self.onEnd = onEnd
    }

    /// Sends `request`, its body `bodyFile`'s contents when given.
    func start(_ request: URLRequest, bodyFile: URL?) {
        send(request, body: UploadBody(request: request, file: bodyFile))
    }

    /// Stops the transfer; it ends with a cancellation error (or the timeout's, when the idle
    /// timer stopped it).
    func cancel() {
        let task = state.withLockedValue { state -> HTTPClient.Task<HopEnd>? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    /// True once `cancel()` was called: an inflating body stops at its next piece.
    var isCancelled: Bool {
        state.withLockedValue { $0.cancelled }
    }

    /// One hop: `request` to the client, its outcome to `hopEnded`.
    private func send(_ request: URLRequest, body: UploadBody?) {
        let eventLoop = client.eventLoopGroup.any()
        let clientRequest: HTTPClient.Request
        do {
            clientRequest = try Self.clientRequest(request, body: body, eventLoop: eventLoop)
        } catch {
            return end(error)
        }
        let hop = NIOResponseDelegate(transfer: self, request: request, body: body, eventLoop: eventLoop)
        let task = client.execute(request: clientRequest, delegate: hop, eventLoop: .delegate(on: eventLoop))
        let stopNow = state.withLockedValue { state -> Bool in
            state.hops += 1
            state.task = task
            return state.cancelled
        }
        if stopNow { task.cancel() }
        task.futureResult.whenComplete { [self] result in
            switch result {
            case .success(.finished): end(nil)
            case .success(.redirect(let next, let body)): follow(next, body: body)
            case .failure(let redirect as FollowNow): follow(redirect.request, body: redirect.body)
            case .failure(let error): end(error)
            }
        }
    }

    /// The next hop of a redirect, unless the transfer was stopped or has hopped too often.
    private func follow(_ request: URLRequest, body: UploadBody?) {
        let (hops, cancelled) = state.withLockedValue { ($0.hops, $0.cancelled) }
        if cancelled { return end(HTTPClientError.cancelled) }
        guard hops <= Self.maxRedirects else { return end(URLError(.httpTooManyRedirects)) }
        send(request, body: body)
    }

    /// Reports the end to the events, once.
    private func end(_ error: (any Error)?) {
        let first = state.withLockedValue { state -> Bool in
            defer { state.ended = true; state.task = nil }
            return !state.ended
        }
        guard first else { return }
        events.transportDidComplete(error: error.map { NIOErrors.urlError(for: $0, timedOut: timer.didFire) })
        onEnd()
    }

    /// The AsyncHTTPClient request for `request`: the same method, URL, headers and body, and
    /// `Accept-Encoding: gzip, deflate` unless the request says otherwise (as libcurl does).
    private static func clientRequest(_ request: URLRequest, body: UploadBody?, eventLoop: any EventLoop) throws -> HTTPClient.Request {
        guard let url = request.url else { throw URLError(.unsupportedURL, detail: "the request has no URL") }
        if let reason = url.unsupportedSchemeReason { throw URLError(.unsupportedURL, detail: reason) }
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        if !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        return try HTTPClient.Request(url: url.absoluteString, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
                                      headers: headers, body: body?.clientBody(eventLoop: eventLoop))
    }
}

/// How one hop ended: the response was delivered, or a redirect is to be followed.
enum HopEnd: Sendable {
    case finished
    case redirect(URLRequest, UploadBody?)
}

extension ResponseHead {
    /// The head of an AsyncHTTPClient response; repeated fields are joined with ", ".
    init(url: URL?, status: HTTPResponseStatus, headers: HTTPHeaders) {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let earlier = fields[name] { fields[name] = earlier + ", " + value } else { fields[name] = value }
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
