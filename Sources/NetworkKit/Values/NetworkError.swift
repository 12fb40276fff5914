import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every way a request can fail, as one type a caller can switch on.
public enum NetworkError: Error, Sendable, CustomStringConvertible {
    /// The URL (or path on the base URL) could not be formed.
    case invalidURL(String)
    /// The request could not be built, e.g. parameters that cannot be encoded.
    case invalidRequest(String)
    /// A parameter broke one of the request's `ParameterRule`s, so nothing was sent.
    case invalidParameter(name: String, reason: String)
    /// The transport failed: no connection, dropped connection, timeout, a server that broke
    /// HTTP… with whether the server may have processed the request.
    case transport(TransportError)
    /// The server answered with a status the request does not accept; the body and the
    /// headers (`Retry-After`, `WWW-Authenticate`…) come with it.
    case httpStatus(code: Int, body: Data, headers: [String: String])
    /// A parser rejected the body.
    case parse(ParseError)
    /// The business code a ``BusinessCodeCheck`` found was not one of its `okValues`.
    case businessCode(code: JSON, message: String?)
    /// The request was cancelled (by `cancel()`, the service, or the awaiting `Task`).
    case cancelled
    /// An interceptor's `adapt` threw this error, so nothing was sent.
    case adaptationFailed(any Error)
    /// The response body passed the request's size limit (counted after content decoding, or
    /// announced by `Content-Length`): the transfer was stopped there.
    case responseTooLarge(limit: Int64)
    /// The request was still running when its time limit (start to finish, retries included)
    /// ran out.
    case timeLimitExceeded(Duration)
    /// A download could not be written, checked or moved into place.
    case download(DownloadError)
    /// A stream's consumers fell `limit` items (for a loop that parses, `limit` × 256 bytes)
    /// behind a transport that cannot pause reading (URLSession): the stream was stopped rather
    /// than hold more.
    case streamBufferFull(limit: Int)
    /// The connection could not be made: a server that failed a TLS check (on every transport),
    /// a proxy that wants credentials or refused, a connection setting the transport cannot do.
    case connection(ConnectionFailure)
    /// A WebSocket connection ended other than by a normal close: a close code, a protocol
    /// violation, a drop, an unanswered ping; or something was sent after it began to close.
    case webSocket(WebSocketError)

    /// The value of a response header of an `httpStatus` failure, looked up without regard to
    /// case (`Retry-After`, `WWW-Authenticate`…); nil for other failures.
    public func header(_ name: String) -> String? {
        guard case .httpStatus(_, _, let headers) = self else { return nil }
        return HeaderFields.value(name, in: headers)
    }

    /// True when the request was cancelled.
    public var isCancellation: Bool {
        if case .cancelled = self { return true }
        return false
    }

    /// True when the failure was a timeout.
    public var isTimeout: Bool {
        if case .transport(let error) = self { return error.code == .timedOut }
        return false
    }

    /// One line fit for a log.
    public var description: String {
        switch self {
        case .invalidURL(let url):
            return "invalid URL: \(url)"
        case .invalidRequest(let reason):
            return "invalid request: \(reason)"
        case .invalidParameter(let name, let reason):
            return "invalid parameter \(name): \(reason)"
        case .transport(let error):
            return "transport error: \(error)"
        case .httpStatus(let code, let body, _):
            let text = body.isEmpty ? "" : ": " + Self.preview(body)
            return "HTTP \(code) \(HTTPURLResponse.localizedString(forStatusCode: code).lowercased())\(text)"
        case .parse(let error):
            return "parse error: \(error)"
        case .businessCode(let code, let message):
            return "business code \(code)" + (message.map { ": \($0)" } ?? "")
        case .cancelled:
            return "cancelled"
        case .adaptationFailed(let error):
            return "request adaptation failed: \(error)"
        case .responseTooLarge(let limit):
            return "response larger than the limit of \(limit) bytes"
        case .timeLimitExceeded(let limit):
            return "time limit of \(limit) exceeded"
        case .download(let error):
            return "download failed: \(error)"
        case .streamBufferFull(let limit):
            return "the stream's consumer fell its buffer behind (\(limit) items, or \(limit * 256) bytes its loop had "
                + "not parsed) a transport that cannot pause reading"
        case .connection(let failure):
            return "connection failed: \(failure)"
        case .webSocket(let error):
            return "WebSocket: \(error)"
        }
    }

    /// The first bytes of a body as text, for messages.
    static func preview(_ body: Data, limit: Int = 200) -> String {
        let head = String(decoding: body.prefix(limit), as: UTF8.self)
        return body.count > limit ? head + "…" : head
    }
}

extension NetworkError {
    /// Maps any error thrown inside the kit to a `NetworkError`.
    static func wrap(_ error: any Error, parser: String = "custom") -> NetworkError {
        switch error {
        case let error as NetworkError: return error
        case let error as ParseError: return .parse(error)
        case let error as URLError: return NetworkError(TransportFailure(error))
        case is CancellationError: return .cancelled
        default: return .parse(ParseError(parser: parser, reason: "\(error)", kind: .custom, underlying: error))
        }
    }

    /// The request's failure for the transfer's: the case of the same name.
    package init(_ failure: TransportFailure) {
        switch failure {
        case .cancelled: self = .cancelled
        case .connection(let failure): self = .connection(failure)
        case .failed(let error): self = .transport(error)
        }
    }
}
