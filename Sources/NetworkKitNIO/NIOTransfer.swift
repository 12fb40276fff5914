#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One transfer of the NIO transport, run in a task of its own: sends the request as it is and
/// streams the head and the body as they arrive. Its task reports the one completion.
struct NIOTransfer: Sendable {
    let client: HTTPClient
    /// How the client reaches the server through a proxy, if it does.
    let proxy: NIOProxyRoute?
    /// What the transport's connection settings decide per request: the TLS configuration of
    /// the request's host when it differs from the client's, the error a failure is.
    let routing: NIORouting
    let events: any TransportEvents
    /// Where the transport's spread of HTTP/2 requests placed this one, if it did: told the
    /// answer's version.
    var ticket: NIOHTTP2Spread.Ticket?

    /// Sends `request` and reports everything to the events but the completion: returns the
    /// failure to complete with (nil on success), so the caller can finish its own bookkeeping
    /// before the waiting pipeline resumes.
    func run(_ request: OutgoingRequest, url: URL?) async -> NetworkError? {
        var answered = false
        let body = UploadBody(request.body)
        do {
            let response = try await client.execute(try clientRequest(request, url: url, body: body), deadline: .distantFuture)
            if let proxy, proxy.absoluteForm, response.status == .proxyAuthenticationRequired {
                // Sent to the proxy itself: its own 407, not the server's.
                return .connection(.proxyAuthenticationRequired(proxy: proxy.server.description))
            }
            ticket?.answered(over: response.version)
            guard let head = ResponseHead(url: url, status: response.status, headers: response.headers,
                                          version: response.version) else {
                return .unreadableStatus(response.status.code)
            }
            events.transportDidReceive(head: head)
            answered = true
            try await receive(response.body)
            return nil
        } catch let failure as NetworkError {
            return failure   // the streamed body's own: its sequence threw, its length was wrong, or cancelled
        } catch {
            if let proxy, let proxyFailure = NIOProxyClients.proxyFailure(for: error, server: proxy.server) {
                return .connection(proxyFailure)
            }
            if !answered, Self.neverWentOut(error, body: body) {
                return .failed(.networkConnectionLost, detail: "the connection closed before the request went out on it",
                               serverProcessing: .notProcessed)
            }
            return Self.processing(await routing.failure(for: error, url: url, direct: proxy == nil),
                                   answered: answered)
        }
    }

    /// Whether AsyncHTTPClient (1.37) failed the request before it wrote any of it:
    /// - it cancelled a request the transport did not cancel: one it had given to a connection
    ///   that began to close (a `GOAWAY`) before the request's stream opened;
    /// - the connection was closed when the request's stream was to be made or its head written
    ///   (I/O on a closed channel), before the client asked for any of the body. A body's pieces
    ///   are asked for only after the head is written, and the head of a request without a body
    ///   is written without a promise, so that error cannot be its own.
    private static func neverWentOut(_ error: any Error, body: UploadBody?) -> Bool {
        if error as? HTTPClientError == .cancelled { return !Task.isCancelled }
        if error as? ChannelError == .ioOnClosedChannel { return body.map { !$0.hasBegun } ?? true }
        return false
    }

    /// A lost connection says whether the server may have processed the request, when the error
    /// does not say already: before any answer, the connection closed before one (on HTTP/1.1,
    /// often a keep-alive connection the server closed as the request went out); after the head,
    /// the server may have.
    private static func processing(_ failure: NetworkError, answered: Bool) -> NetworkError {
        guard case .transport(let error) = failure, error.code == .networkConnectionLost else { return failure }
        return .transport(error.saying(answered ? .mayHaveProcessed : .closedBeforeAnswer))
    }

    /// The AsyncHTTPClient request for `request` (whose target is `url`): the same method,
    /// target, header fields in their order, and body. A request in absolute form is addressed to
    /// the proxy, with the server's `Host` and the proxy's credentials.
    private func clientRequest(_ request: OutgoingRequest, url: URL?, body: UploadBody?) throws -> HTTPClientRequest {
        var clientRequest: HTTPClientRequest
        if let proxy, proxy.absoluteForm {
            guard let url else { throw TransportError(.badURL, detail: "\(request.head.urlString) is not a URL") }
            clientRequest = try Self.absoluteFormRequest(url, through: proxy.server)
        } else {
            // The URL the request was made from is its target as written (`OutgoingRequest.url`):
            // its string is at hand.
            clientRequest = HTTPClientRequest(url: url?.absoluteString ?? request.head.urlString)
            clientRequest.tlsConfiguration = routing.tlsConfiguration(for: url)
        }
        clientRequest.method = HTTPMethod(rawValue: request.head.method.rawValue)
        let fields = request.head.headerFields
        clientRequest.headers.reserveCapacity(fields.count)
        for field in fields where !(proxy?.absoluteForm == true && field.name.canonicalName == "host") {
            clientRequest.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            clientRequest.body = .stream(body.chunks(reportingTo: events), length: body.length.map { .known($0) } ?? .unknown)
        }
        return clientRequest
    }

    /// A request to `server` for `url`: sent to the proxy's address, with the `Host` of `url`,
    /// which `AbsoluteFormTargets` turns into the absolute-form target on the wire.
    private static func absoluteFormRequest(_ url: URL, through server: ProxyServer) throws -> HTTPClientRequest {
        guard let host = AbsoluteFormTargets.hostField(for: url),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw TransportError(.badURL, detail: "\(url.absoluteString) has no host")
        }
        components.scheme = "http"
        components.host = server.host
        components.port = server.port
        components.user = nil
        components.password = nil
        components.fragment = nil
        guard let proxied = components.url else {
            throw TransportError(.badURL, detail: "\(url.absoluteString) cannot be sent through \(server)")
        }
        var request = HTTPClientRequest(url: proxied.absoluteString)
        request.headers.add(name: "Host", value: host)
        if let credentials = server.credentials {
            request.headers.add(name: "Proxy-Authorization",
                                value: HTTPClient.Authorization.basic(username: credentials.user, password: credentials.password).headerValue)
        }
        return request
    }

    /// Streams the body to the events as it arrives.
    private func receive(_ body: HTTPClientResponse.Body) async throws {
        for try await buffer in body {
            if buffer.readableBytes < 16 * 1024 {
                // Copied through the raw bytes: `Data(buffer.readableBytesView)` goes the generic
                // sequence way, with dynamic casts, which cost more than the copy of a small chunk.
                events.transportDidReceive(chunk: buffer.withUnsafeReadableBytes { Data($0) })
            } else {
                events.transportDidReceive(chunk: Data(sharing: buffer))
            }
            // Backpressure: the next read waits until a stream's consumer has room.
            await events.transportReadyForMoreBody()
        }
    }
}

extension ResponseHead {
    /// The head of an AsyncHTTPClient response: its fields in the order they came, repeated
    /// fields apart; a field whose name is not a token is left out. Nil for a status code
    /// outside 0...999.
    init?(url: URL?, status: HTTPResponseStatus, headers: HTTPHeaders, version: NIOHTTP1.HTTPVersion) {
        guard let status = HTTPResponse.Status(received: Int(status.code)) else { return nil }
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: name, value: value))
        }
        self.init(url: url, status: status, headerFields: fields,
                  httpVersion: NetworkKit.HTTPVersion(major: version.major, minor: version.minor))
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
