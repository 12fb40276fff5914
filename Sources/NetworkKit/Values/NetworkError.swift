import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every way a request can fail, as one type a caller can switch on: what every `send`, `stream`,
/// `reply`, pager and WebSocket of the kit throws, and what every completion handler gets.
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
    /// header fields (`Retry-After`, `WWW-Authenticate`…) come with it.
    case httpStatus(code: Int, body: Data, headerFields: HTTPFields)
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
    /// A request body made as it was sent (``RequestBodyStream``) failed: its sequence threw,
    /// its bytes did not match its declared length, or it was asked for again after it was sent.
    case requestBodyStream(RequestBodyStream.Failure)
    /// The connection could not be made: a server that failed a TLS check (on every transport),
    /// a proxy that wants credentials or refused, a connection setting the transport cannot do.
    case connection(ConnectionError)
    /// A WebSocket connection ended other than by a normal close: a close code, a protocol
    /// violation, a drop, an unanswered ping; or something was sent after it began to close.
    case webSocket(WebSocketError)
    /// A request of a ``BatchRequest`` failed: its position in the batch (from 0, in the order
    /// added), its identity, and how it failed. A cancelled batch names its first request without
    /// a value, with `error` `.cancelled`; `requestID` is nil only for a batch with no requests.
    indirect case batchFailed(index: Int, requestID: RequestID?, error: NetworkError)
    /// A step of a ``ChainRequest`` failed: the step (from 0), its request's identity (nil when
    /// the chain was cancelled before the step was added), and how: its request's error, the
    /// error its callback threw, or `.cancelled`.
    indirect case chainFailed(step: Int, requestID: RequestID?, error: NetworkError)
    /// A ``Pager`` sent nothing: a page is loading already (`loadFirstPage` would cancel it and
    /// start over).
    case pageAlreadyLoading
    /// A ``Pager`` sent nothing: the last page has been loaded (`loadFirstPage` starts over).
    case noMorePages
    /// The service is shut down (``Service/shutdown(gracePeriod:)``): it sent nothing for a
    /// request started after the shutdown began, and ended a stream, or a request still running
    /// when the grace period ran out.
    case serviceShutDown

    /// The value of a response header field of an `httpStatus` failure (`Retry-After`,
    /// `WWW-Authenticate`…), repeated fields joined with ", "; nil for other failures.
    public func header(_ name: HTTPField.Name) -> String? {
        guard case .httpStatus(_, _, let headerFields) = self else { return nil }
        return headerFields[name]
    }

    /// True when the request was cancelled (for a batch or a chain, the request that failed it).
    public var isCancellation: Bool {
        switch self {
        case .cancelled: true
        case .batchFailed(_, _, let error), .chainFailed(_, _, let error): error.isCancellation
        default: false
        }
    }

    /// True when the failure was a timeout (for a batch or a chain, the failure of its request).
    public var isTimeout: Bool {
        switch self {
        case .transport(let error): error.code == .timedOut
        case .batchFailed(_, _, let error), .chainFailed(_, _, let error): error.isTimeout
        default: false
        }
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
        case .requestBodyStream(let failure):
            return "request body: \(failure)"
        case .connection(let failure):
            return "connection failed: \(failure)"
        case .webSocket(let error):
            return "WebSocket: \(error)"
        case .batchFailed(let index, let id, let error):
            return "request \(index)" + (id.map { " (\($0))" } ?? "") + " of the batch: \(error)"
        case .chainFailed(let step, let id, let error):
            return "step \(step)" + (id.map { " (\($0))" } ?? "") + " of the chain: \(error)"
        case .pageAlreadyLoading:
            return "a page is loading already"
        case .noMorePages:
            return "the last page has been loaded"
        case .serviceShutDown:
            return "the service is shut down"
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
        case let error as URLError: return NetworkError(error)
        case is CancellationError: return .cancelled
        default: return .parse(ParseError(parser: parser, reason: "\(error)", kind: .custom, underlying: error))
        }
    }

    /// A Foundation `URLError` as a transport reports it: `.cancelled` for its cancellation code,
    /// else a transport failure of its code and description (`TransportError(_:)`).
    package init(_ error: URLError) {
        self = error.code == .cancelled ? .cancelled : .transport(TransportError(error))
    }

    /// A transport's failure of `code`, in its words `detail`, with what it can tell of whether
    /// the server processed the request.
    package static func failed(_ code: URLError.Code, detail: String = "",
                               serverProcessing: ServerProcessing? = nil) -> NetworkError {
        .transport(TransportError(code, detail: detail, serverProcessing: serverProcessing))
    }
}
