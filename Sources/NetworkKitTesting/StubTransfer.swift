import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of a ``StubTransport``, run in a task of its own: records the request, reports
/// upload progress, and plays the answer's head (redirects included: the kit follows them) and
/// its chunks as they would cross the wire, with its delays and fault. Its task reports the one
/// completion.
struct StubTransfer: Sendable {
    /// The upload progress step, as the NIO transport sends a body.
    static let uploadPiece = 64 * 1024

    let transport: StubTransport
    let events: any TransportEvents

    /// What an upgrade to a WebSocket asked for, and where its connection goes.
    struct Upgrade: Sendable {
        let options: WebSocketOptions
        let opened: @Sendable (any WebSocketConnection) -> Void
    }

    /// Plays the transfer and returns the failure to complete with (nil on success).
    func run(_ request: OutgoingRequest, upgrade: Upgrade? = nil) async -> NetworkError? {
        do {
            try await send(request, body: try await Self.body(of: request), upgrade: upgrade)
            return nil
        } catch let error as NetworkError {
            return error   // a streamed body's own failure
        } catch let error as TransportError {
            return .transport(error)
        } catch let error as URLError {
            return NetworkError(error)
        } catch {
            // CancellationError from a sleep or a check: reported as the real transports do.
            return .cancelled
        }
    }

    /// The body to send: the file's contents, a stream's chunks, or the bytes in memory.
    private static func body(of request: OutgoingRequest) async throws -> Data {
        if let stream = request.bodyStream {
            var reader = try stream.makeReader()
            var body = Data()
            while let chunk = try await reader.next() { body.append(chunk) }
            return body
        }
        guard let file = request.bodyFile else { return request.bodyData ?? Data() }
        do {
            return try Data(contentsOf: file)
        } catch {
            throw TransportError(.cannotOpenFile, detail: "StubTransport cannot read the body file \(file.path): \(error)")
        }
    }

    private func send(_ request: OutgoingRequest, body: Data, upgrade: Upgrade?) async throws {
        try Task.checkCancellation()
        let recorded = RecordedRequest(request: request, body: body)
        let response: StubResponse
        switch transport.receive(recorded) {
        case .success(let answer): response = answer
        case .failure(let unmatched): throw unmatched.transportError
        }
        try reportUpload(of: body)
        let timeout = IdleTimeout(request)
        try await wait(response.headDelay, timeout: timeout)
        switch response.fault {
        case .failure(let error): throw error
        case .timeOut(.none): try await wait(nil, timeout: timeout)
        default: break
        }
        if response.webSocketScript != nil || (upgrade != nil && response.status == 101) {
            try open(response, for: recorded, upgrade: upgrade)
            return
        }
        events.transportDidReceive(head: ResponseHead(url: recorded.url, status: response.status, headerFields: response.sentHeaderFields))
        try await deliverBody(of: response, method: recorded.method, timeout: timeout)
    }

    /// Opens the WebSocket `response` answers `request` with, and starts its script in a task of
    /// its own; fails as a client checking the `101` would.
    private func open(_ response: StubResponse, for request: RecordedRequest, upgrade: Upgrade?) throws {
        guard let upgrade else {
            throw TransportError(.badServerResponse, detail: "StubTransport: a WebSocket answer to \(request.method) \(request.url?.absoluteString ?? "?"), which asked for no upgrade")
        }
        guard let script = response.webSocketScript else {
            throw TransportError(.badServerResponse, detail: "StubTransport: a 101 without a WebSocket script (StubResponse.webSocket)")
        }
        let picked = response.headerFields[.secWebSocketProtocol]
        if let picked, !upgrade.options.subprotocols.contains(picked) {
            throw TransportError(.badServerResponse, detail: "the server picked the subprotocol \(picked), which the request did not offer")
        }
        events.transportDidReceive(head: ResponseHead(url: request.url, status: 101, headerFields: response.headerFields))
        let link = StubWebSocketLink()
        upgrade.opened(StubWebSocketConnection(link: link, subprotocol: picked, maxMessageBytes: upgrade.options.maxMessageBytes))
        let peer = StubWebSocketPeer(request: request, link: link)
        Task {
            do {
                try await script(peer)
                peer.close(code: 1000)
            } catch {
                peer.close(code: 1011, reason: "\(error)")
            }
        }
    }

    /// Reports the body as sent, in pieces, with its total.
    private func reportUpload(of body: Data) throws {
        let total = Int64(body.count)
        for sent in stride(from: Self.uploadPiece, to: body.count + Self.uploadPiece, by: Self.uploadPiece) {
            try Task.checkCancellation()
            events.transportDidSend(bytes: min(Int64(sent), total), of: total)
        }
    }

    /// Delivers the body's chunks as sent, with their delays (none for a `HEAD`), then fails as
    /// the fault says.
    private func deliverBody(of response: StubResponse, method: String, timeout: IdleTimeout?) async throws {
        let chunks = method == "HEAD" ? [] : response.sentChunks
        for (index, chunk) in chunks.enumerated() {
            if index > 0 { try await wait(response.chunkDelay, timeout: timeout) }
            try Task.checkCancellation()
            events.transportDidReceive(chunk: chunk)
        }
        switch response.fault {
        case .dropConnection(let bytes):
            throw TransportError(.closedEarly, transportText: "StubTransport dropped the connection after \(bytes) of \(response.body.count) bytes")
        case .timeOut:
            try await wait(nil, timeout: timeout)
        case .failure, .none:
            break
        }
    }

    /// Waits `delay` on the stub's clock, or until cancelled when nil. A wait that the request's
    /// idle timeout is reached by fails at that timeout with its error: the rule the kit's idle
    /// watch applies (`IdleTimeout`), decided here on the stub's clock, so a test clock that does
    /// not really wait makes timeouts instant as well as delays.
    private func wait(_ delay: Duration?, timeout: IdleTimeout?) async throws {
        if let timeout, timeout.isReached(by: delay) {
            try await transport.sleep(timeout.duration)
            throw timeout.error
        }
        guard let delay else { try await Self.waitForCancellation() }
        if delay > .zero { try await transport.sleep(delay) }
    }

    /// Silence with no timeout: throws `CancellationError` once the task is cancelled, and waits
    /// on no clock, so one whose sleeps return at once cannot spin it.
    private static func waitForCancellation() async throws -> Never {
        let (silence, end) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in silence {}
        } onCancel: {
            end.finish()
        }
        throw CancellationError()
    }
}
