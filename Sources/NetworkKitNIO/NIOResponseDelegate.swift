import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hears one hop of a transfer from AsyncHTTPClient, on the hop's event loop: reports upload
/// progress, decides on redirects, streams the head and the body to the transfer's events
/// (inflated when content-encoded), and touches the idle timer on every piece.
///
/// A body piece is handed on before the client reads the next one, so a download's file is
/// written at the pace it arrives and nothing piles up in memory.
final class NIOResponseDelegate: HTTPClientResponseDelegate {
    typealias Response = HopEnd

    /// A redirect's own body is read to its end (so its connection can be used again) up to
    /// this many bytes; a longer one is dropped with its connection.
    static let redirectBodyLimit = 1 << 20

    private struct State {
        var sent: Int64 = 0
        /// The request to follow instead of delivering this response, and how much of the
        /// redirect's body was read.
        var redirect: (request: URLRequest, body: UploadBody?)?
        var discarded = 0
        var inflater: StreamingInflater?
    }

    private let transfer: NIOTransfer
    private let request: URLRequest
    private let body: UploadBody?
    /// Touched only on the hop's event loop, where the client calls every method.
    private let state: NIOLoopBoundBox<State>

    init(transfer: NIOTransfer, request: URLRequest, body: UploadBody?, eventLoop: any EventLoop) {
        self.transfer = transfer
        self.request = request
        self.body = body
        state = NIOLoopBoundBox.makeBoxSendingValue(State(), eventLoop: eventLoop)
    }

    func didSendRequestPart(task: HTTPClient.Task<HopEnd>, _ part: IOData) {
        transfer.timer.touch()
        state.value.sent += Int64(part.readableBytes)
        transfer.events.transportDidSend(bytes: state.value.sent, of: body?.length)
    }

    func didReceiveHead(task: HTTPClient.Task<HopEnd>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        transfer.timer.touch()
        let response = ResponseHead(url: request.url, status: head.status, headers: head.headers)
        if let proposed = Redirect.proposal(after: request, head: response),
           let next = transfer.events.transportWillRedirect(to: proposed, response: response) {
            let body = next.httpMethod == request.httpMethod ? body : UploadBody(request: next, file: nil)
            state.value.redirect = (next, body)
        } else {
            transfer.events.transportDidReceive(head: response)
            state.value.inflater = response.contentCoding.map { StreamingInflater(coding: $0) }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HopEnd>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        transfer.timer.touch()
        do {
            try take(buffer)
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<HopEnd>) throws -> HopEnd {
        if let redirect = state.value.redirect { return .redirect(redirect.request, redirect.body) }
        if let inflater = state.value.inflater { try Self.decoding { try inflater.finish() } }
        return .finished
    }

    /// One piece of the body: to the events (inflated), or counted and dropped for a redirect.
    private func take(_ buffer: ByteBuffer) throws {
        if let redirect = state.value.redirect {
            state.value.discarded += buffer.readableBytes
            // Follow at once rather than read an endless redirect body.
            if state.value.discarded > Self.redirectBodyLimit { throw FollowNow(request: redirect.request, body: redirect.body) }
        } else if let inflater = state.value.inflater {
            let events = transfer.events, transfer = self.transfer
            try Self.decoding {
                try buffer.withUnsafeReadableBytes { bytes in
                    try inflater.inflate(bytes) { piece in
                        // A bomb inflates far more than it sends: stop as soon as the request is stopped.
                        if transfer.isCancelled { throw HTTPClientError.cancelled }
                        events.transportDidReceive(chunk: piece)
                    }
                }
            }
        } else if buffer.readableBytes < 16 * 1024 {
            transfer.events.transportDidReceive(chunk: Data(buffer.readableBytesView))
        } else {
            transfer.events.transportDidReceive(chunk: Data(sharing: buffer))
        }
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
}

/// Ends a hop whose redirect body is too long to read: the transfer follows the redirect.
struct FollowNow: Error {
    let request: URLRequest
    let body: UploadBody?
}
