#if Observability
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Tracing

/// One request's spans and metrics. The request's span (kind internal, named by its method)
/// lasts from start to finish, or for a WebSocket until its connection ends; each transfer it sends
/// (an attempt, and each redirect an attempt follows) has a client span of its own under it,
/// named and attributed as OpenTelemetry's HTTP client conventions say, whose context goes out
/// in the transfer's headers as the tracer writes it (`traceparent` and `tracestate` for W3C).
final class RequestObserver: RequestObserving, EventMonitor {
    private let tracer: (any Tracer)?
    private let parent: ServiceContext
    private let meters: RequestMeters?
    private let method: HTTPRequest.Method
    private let redaction: Redaction

    private struct State {
        var request: (any Span)?
        var transfer: (any Span)?
        /// Transfers announced so far.
        var transfers = 0
        /// The host label of the last URL built or sent.
        var host = "none"
        /// Set once the upgrade handed a WebSocket connection over: the request's span then ends with it.
        var webSocketOpen = false
        /// The target attributes of the URL built, which most transfers send to as well.
        var target: (url: URL, attributes: SpanAttributes)?
        /// The URL the open transfer's span names.
        var transferURL: URL?
        /// The host label the in-flight meter counts the transfer under way by.
        var inFlightHost: String?
    }
    private let state = Protected(State())

    init(tracer: (any Tracer)?, parent: ServiceContext, meters: RequestMeters?, method: HTTPRequest.Method, redaction: Redaction) {
        self.tracer = tracer
        self.parent = parent
        self.meters = meters
        self.method = method
        self.redaction = redaction
    }

    func requestDidStart() {
        guard let tracer else { return }
        let span = tracer.startSpan(method.rawValue, context: parent, ofKind: .internal)
        span.attributes[Attribute.method] = method.rawValue
        state.withLock { $0.request = span }
    }

    func requestDidBuild(_ url: URL?) {
        let target = tracer == nil ? nil : url.map { ($0, targetAttributes(of: $0)) }
        let span = state.withLock { state -> (any Span)? in
            state.host = RequestMeters.host(of: url)
            state.target = target
            return state.request
        }
        if let span, let target { span.updateAttributes { $0.merge(target.1) } }
    }

    func transferWillStart(_ request: inout OutgoingRequest) {
        let url = request.url
        let (parent, resends, leftover, built) = state.withLock { state in
            if url != state.target?.url { state.host = RequestMeters.host(of: url) }
            defer { state.transfers += 1; state.transfer = nil; state.transferURL = url }
            return (state.request?.context, state.transfers, state.transfer, state.target)
        }
        leftover?.end()
        guard let tracer, let parent else { return }
        var attributes: SpanAttributes?
        if let url { attributes = url == built?.url ? built?.attributes : targetAttributes(of: url) }
        if resends > 0 { attributes?[Attribute.resendCount] = resends }
        let span = tracer.startSpan(method.rawValue, context: parent, ofKind: .client)
        if let attributes { span.updateAttributes { $0.merge(attributes) } }
        tracer.inject(span.context, into: &request, using: HeaderInjector())
        state.withLock { $0.transfer = span }
    }

    func transferDidEnd(head: ResponseHead?, error: NetworkError?) {
        guard let span = state.withLock({ state in defer { state.transfer = nil }; return state.transfer }) else { return }
        record(status: head?.status.code, version: head?.httpVersion, error: error, on: span)
        span.end()
    }

    func waitingDidChange(_ waiting: Bool, host: String) {
        meters?.waiting(waiting, host: host)
    }

    func attemptWillSend(_ request: OutgoingRequest) {
        let url = request.url
        let (moved, host) = state.withLock { state -> ((any Span)?, String) in
            let moved = url != state.transferURL
            if moved {
                state.host = RequestMeters.host(of: url)
                state.transferURL = url
            }
            state.inFlightHost = state.host
            return (moved ? state.transfer : nil, state.host)
        }
        if let moved, let url {   // an interceptor sent the transfer elsewhere: its span names where
            let attributes = targetAttributes(of: url)
            moved.updateAttributes { $0.merge(attributes) }
        }
        meters?.inFlight(true, host: host)
    }

    func attemptDidEnd() {
        guard let host = state.withLock({ state in defer { state.inFlightHost = nil }; return state.inFlightHost }) else { return }
        meters?.inFlight(false, host: host)
    }

    func requestWillRetry(after delay: Duration, error: NetworkError) {
        let (span, host) = state.withLock { ($0.request, $0.host) }
        meters?.count(RequestMeters.Label.retries, host: host)
        span?.addEvent(SpanEvent(name: "retry", attributes: [
            Attribute.errorType: .string(error.errorType), Attribute.retryDelay: .double(delay.inSeconds),
        ]))
    }

    func requestWillResend(error: NetworkError) {
        let (span, host) = state.withLock { ($0.request, $0.host) }
        meters?.count(RequestMeters.Label.resends, host: host)
        span?.addEvent(SpanEvent(name: "resend", attributes: [Attribute.errorType: .string(error.errorType)]))
    }

    func webSocketOpened() -> any EventMonitor {
        state.withLock { $0.webSocketOpen = true }
        return self
    }

    func requestDidFinish(_ metrics: RequestMetrics, stream: (items: Int, connections: Int)?) {
        let (span, transfer, transfers, host, lasts) = state.withLock { state in
            defer { state.transfer = nil }
            let lasts = state.webSocketOpen && metrics.error == nil
            if !lasts { state.webSocketOpen = false }
            return (state.request, state.transfer, state.transfers, state.host, lasts)
        }
        meters?.finished(metrics, host: host)
        if let transfer {
            record(status: nil, version: nil, error: metrics.error ?? .cancelled, on: transfer)
            transfer.end()
        }
        guard let span else { return }
        record(status: metrics.statusCode, version: metrics.httpVersion, error: metrics.error, on: span) { attributes in
            if transfers > 1 { attributes[Attribute.resendCount] = transfers - 1 }
            if metrics.cache != .notUsed { attributes[Attribute.cache] = "\(metrics.cache)" }
            if let stream {
                attributes[Attribute.streamItems] = stream.items
                attributes[Attribute.streamConnections] = stream.connections
            }
        }
        if !lasts { span.end() }
    }

    /// The end of the WebSocket connection the upgrade opened: the request's span ends with it.
    func webSocket(_ id: RequestID, didCloseWith summary: WebSocketSummary) {
        let span = state.withLock { state -> (any Span)? in
            guard state.webSocketOpen else { return nil }
            state.webSocketOpen = false
            return state.request
        }
        guard let span else { return }
        record(status: nil, version: nil, error: summary.error, on: span) { attributes in
            attributes[Attribute.messagesSent] = summary.messagesSent
            attributes[Attribute.messagesReceived] = summary.messagesReceived
            attributes[Attribute.webSocketBytesSent] = summary.bytesSent
            attributes[Attribute.webSocketBytesReceived] = summary.bytesReceived
            if let code = summary.appCloseCode { attributes[Attribute.closeCode] = Int(code) }
        }
        span.end()
    }

    // MARK: - Attributes

    /// `http.request.method`, `url.full` (secrets hidden), `url.scheme`, `server.address` and `server.port`.
    private func targetAttributes(of url: URL) -> SpanAttributes {
        var attributes = SpanAttributes()
        attributes[Attribute.method] = method.rawValue
        attributes[Attribute.url] = redaction.url(url.withoutCredentials)
        if let scheme = url.scheme { attributes[Attribute.scheme] = scheme.lowercased() }
        if let host = url.host { attributes[Attribute.serverAddress] = host }
        if let port = url.port ?? url.defaultPort { attributes[Attribute.serverPort] = port }
        return attributes
    }

    /// The status, the protocol version and `more` in one update of the span's attributes, then
    /// the failure: the error (its type in `error.type`), or a status of 400 and above (as
    /// OpenTelemetry's client conventions say).
    private func record(status: Int?, version: HTTPVersion?, error: NetworkError?, on span: any Span,
                        _ more: (inout SpanAttributes) -> Void = { _ in }) {
        let failure = error?.errorType ?? status.flatMap { $0 >= 400 ? String($0) : nil }
        span.updateAttributes { attributes in
            if let status { attributes[Attribute.statusCode] = status }
            if let version { attributes[Attribute.protocolVersion] = version.otelName }
            if let failure { attributes[Attribute.errorType] = failure }
            more(&attributes)
        }
        if let error { span.recordError(error) }
        if failure != nil { span.setStatus(SpanStatus(code: .error, message: error?.description)) }
    }

    /// The attribute names: OpenTelemetry's HTTP client conventions, and the kit's own under `networkkit.`.
    private enum Attribute {
        static let method = "http.request.method"
        static let url = "url.full"
        static let scheme = "url.scheme"
        static let serverAddress = "server.address"
        static let serverPort = "server.port"
        static let statusCode = "http.response.status_code"
        static let errorType = "error.type"
        static let resendCount = "http.request.resend_count"
        static let protocolVersion = "network.protocol.version"
        static let retryDelay = "networkkit.retry.delay"
        static let cache = "networkkit.cache"
        static let streamItems = "networkkit.stream.items"
        static let streamConnections = "networkkit.stream.connections"
        static let messagesSent = "networkkit.websocket.messages_sent"
        static let messagesReceived = "networkkit.websocket.messages_received"
        static let webSocketBytesSent = "networkkit.websocket.bytes_sent"
        static let webSocketBytesReceived = "networkkit.websocket.bytes_received"
        static let closeCode = "networkkit.websocket.close_code"
    }
}

/// Writes a tracer's context into a request's headers.
private struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout OutgoingRequest) {
        guard let name = HTTPField.Name(key) else { return }   // a key that is no field name is left out
        request.head.headerFields[name] = value
    }
}

extension NetworkError {
    /// The failure's kind for `error.type`: a few fixed words, never a message.
    var errorType: String {
        switch self {
        case .invalidURL: "invalid_url"
        case .invalidRequest: "invalid_request"
        case .invalidParameter: "invalid_parameter"
        case .transport(let error) where error.code == .timedOut: "timeout"
        case .transport: "transport"
        case .httpStatus(let code, _, _): String(code)
        case .parse: "parse"
        case .businessCode: "business_code"
        case .cancelled: "cancelled"
        case .adaptationFailed: "adaptation_failed"
        case .responseTooLarge: "response_too_large"
        case .timeLimitExceeded: "time_limit_exceeded"
        case .download: "download"
        case .streamBufferFull: "stream_buffer_full"
        case .requestBodyStream: "request_body_stream"
        case .connection: "connection"
        case .webSocket: "websocket"
        case .batchFailed(_, _, let error), .chainFailed(_, _, let error): error.errorType
        case .pageAlreadyLoading: "page_already_loading"
        case .noMorePages: "no_more_pages"
        case .serviceShutDown: "service_shut_down"
        }
    }
}

extension HTTPVersion {
    /// As `network.protocol.version` writes it: `1.1`, `2`.
    fileprivate var otelName: String {
        major >= 2 && minor == 0 ? String(major) : "\(major).\(minor)"
    }
}

extension URL {
    /// The port its scheme implies: 443 for https and wss, 80 for http and ws.
    fileprivate var defaultPort: Int? {
        switch scheme?.lowercased() {
        case "https", "wss": 443
        case "http", "ws": 80
        default: nil
        }
    }

    /// The URL with any user and password replaced by `REDACTED`, as OpenTelemetry asks of `url.full`.
    fileprivate var withoutCredentials: URL {
        guard user != nil || password != nil,
              var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return self }
        if components.user != nil { components.user = "REDACTED" }
        if components.password != nil { components.password = "REDACTED" }
        return components.url ?? self
    }
}
#endif
