#if OpenAPIRuntime
import Foundation
import HTTPTypes
import NetworkKit
import OpenAPIRuntime

/// A swift-openapi-runtime `ClientTransport` that sends each call of a client made by
/// swift-openapi-generator through a ``NetworkKit/Service``: its environment and base URL, its
/// interceptors and signer, retries, response cache, cookies, size and time limits, event
/// monitors, spans and metrics, HAR recording, and whatever transport it has (URLSession, NIO,
/// or `StubTransport` in an app's tests).
///
/// ```swift
/// let client = Client(serverURL: try Servers.Server1.url(),
///                     transport: ServiceClientTransport(service: service))
/// let pet = try await client.getPet(path: .init(id: 7)).ok.body.json
/// ```
///
/// What it guarantees:
/// - Every status reaches the generated client, which maps it to the operation's documented
///   responses; the service's retries and validation still see it first (a `503` is retried
///   as the service's ``NetworkKit/RetryPolicy`` says, then handed to the client as a `503`).
///   The service's envelope and business-code check are skipped: the generated code decodes
///   the body itself.
/// - A response whose request accepts one of ``streamedMediaTypes`` (server-sent events, JSON
///   Lines, JSON sequences, raw bytes) is streamed: the call returns with the first bytes of the
///   body, and the body's `HTTPBody` yields the rest as it arrives, within the request's size
///   limit; a reader that falls ``streamBufferBytes`` behind stops the reading on NIO and fails the
///   body on URLSession (see ``NetworkKit/StreamRequest``). Such a response is never
///   answered from the cache. Any other response is read whole, within the request's size limit,
///   so that the cache and retries can work on it.
/// - A request body of known length up to ``inMemoryBodyLimit`` is read into memory and sent
///   from there (a signer can read it, a retry sends it again). A longer one, or one of unknown
///   length, is sent as a ``NetworkKit/RequestBodyStream`` as the client makes it: on NIO without
///   being collected, on URLSession through a temporary file. Such a body is sent again by a
///   retry or a `307`/`308` only when its `HTTPBody` can be iterated more than once
///   (`iterationBehavior` `.multiple`).
/// - Cancelling the calling task cancels the transfer; so does dropping a streamed body before
///   its end.
/// - A failure is thrown as the kit's ``NetworkKit/NetworkError``, which the generated client
///   wraps in its `ClientError` (`underlyingError`).
public struct ServiceClientTransport: ClientTransport {
    /// Which base URL a call goes to.
    public enum Server: Sendable, Equatable {
        /// The service's current environment: the operation's path goes on the service's base
        /// URL, and the `serverURL` the client was made with is not used.
        case service
        /// The `serverURL` the client was made with; the service's environment is not used.
        case client
    }

    /// The service every call goes through.
    public let service: Service
    /// Which base URL a call goes to.
    public var server: Server
    /// The media types whose responses are streamed rather than read whole: a request whose
    /// `Accept` names one of them (parameters and case ignored) gets its body as it arrives.
    public var streamedMediaTypes: Set<String> {
        didSet { streamedMediaTypes = Set(streamedMediaTypes.map { $0.lowercased() }) }
    }
    /// The largest request body, in bytes, read into memory before it is sent; longer ones are
    /// streamed.
    public var inMemoryBodyLimit: Int
    /// How many bytes of a streamed body may wait for a slow reader. On NIO the transport stops
    /// reading there; on URLSession, which cannot, the call's body fails with
    /// ``NetworkKit/NetworkError/streamBufferFull(limit:)`` (see ``NetworkKit/StreamRequest``).
    public var streamBufferBytes: Int
    /// Called with each request before it is sent, and the operation's ID, to set what the
    /// document cannot say: a cache policy, a timeout, a priority, interceptors of its own.
    public var prepare: (@Sendable (AnyRequest, _ operationID: String) -> Void)?

    /// The media types streamed by default: server-sent events, JSON Lines, JSON text sequences
    /// and raw bytes.
    public static let defaultStreamedMediaTypes: Set<String> = [
        "text/event-stream", "application/jsonl", "application/x-ndjson", "application/json-seq",
        "application/octet-stream",
    ]

    /// Creates a transport sending through `service`, to the base URL `server` names.
    public init(
        service: Service,
        server: Server = .service,
        streamedMediaTypes: Set<String> = ServiceClientTransport.defaultStreamedMediaTypes,
        inMemoryBodyLimit: Int = 1 << 20,
        streamBufferBytes: Int = 4 << 20,
        prepare: (@Sendable (AnyRequest, _ operationID: String) -> Void)? = nil
    ) {
        self.service = service
        self.server = server
        self.streamedMediaTypes = Set(streamedMediaTypes.map { $0.lowercased() })
        self.inMemoryBodyLimit = inMemoryBodyLimit
        self.streamBufferBytes = streamBufferBytes
        self.prepare = prepare
    }

    /// Sends `request` with `body` through the service and returns the response with its body.
    /// - Throws: ``NetworkKit/NetworkError``: the request's failure, other than an HTTP status
    ///   (which is returned as a response).
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
        -> (HTTPResponse, HTTPBody?)
    {
        let method = request.method
        let target = try target(of: request, baseURL: baseURL)
        let outgoing = try await Self.requestBody(body, contentType: request.headerFields[.contentType],
                                                  inMemoryLimit: inMemoryBodyLimit)
        let headerFields = Self.sentFields(request.headerFields)
        if streams(request) {
            // The stream's one consumer is the loop that parses: its buffer holds 256 bytes an item.
            let stream = StreamRequest(target, method: method, headerFields: headerFields, parser: HeadAndChunks(),
                                       bufferLimit: max(streamBufferBytes / 256, 1))
            configure(stream, body: outgoing, operationID: operationID)
            return try await StreamedAnswer.receive(stream, from: service)
        }
        let plain = Request(target, method: method, headerFields: headerFields, parser: WholeResponse())
        configure(plain, body: outgoing, operationID: operationID)
        let result = await service.result(of: plain)
        switch result {
        case .success(let response):
            let head = plain.responseHead ?? ResponseHead(url: response.url, status: response.status,
                                                          headerFields: response.headerFields)
            return (Self.response(head), Self.body(response.data, method: method))
        case .failure(.httpStatus(let code, let data, let headerFields)):
            let head = plain.responseHead ?? ResponseHead(url: nil, status: .init(code: code), headerFields: headerFields)
            return (Self.response(head), Self.body(data, method: method))
        case .failure(let error):
            throw error
        }
    }

    /// The options every call sets, then the app's own.
    private func configure(_ request: AnyRequest, body: RequestBody, operationID: String) {
        request.body = body
        // The generated code reads the whole body and every status; the envelope and the
        // business code are the service's conventions, not the document's.
        request.skippedServiceDefaults.insert(.envelope)
        prepare?(request, operationID)
    }

    /// What the call sends for `body`: nothing; its bytes, read into memory when its known length
    /// is at most `inMemoryLimit`; otherwise a stream of its chunks, made again for a retry when
    /// the body can be iterated more than once.
    private static func requestBody(_ body: HTTPBody?, contentType: String?, inMemoryLimit: Int) async throws -> RequestBody {
        let type = contentType ?? "application/octet-stream"
        guard let body else { return .none }
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        if let length, length <= Int64(inMemoryLimit) {
            return .data(try await Data(collecting: body, upTo: Int(length)), contentType: type)
        }
        let stream = switch body.iterationBehavior {
        case .multiple: RequestBodyStream(length: length, repeating: { body })
        case .single: RequestBodyStream(body, length: length)
        }
        return .stream(stream, contentType: type)
    }

    /// Whether the answer to `request` is streamed: its `Accept` names a streamed media type.
    /// The fields are scanned in order (a lookup by name would build their index for one read),
    /// and each media range is read without Foundation's character sets: a call pays for neither.
    private func streams(_ request: HTTPRequest) -> Bool {
        guard !streamedMediaTypes.isEmpty else { return false }
        return request.headerFields.contains { field in
            field.name == .accept && field.value.split(separator: ",").contains { range in
                let type = range.prefix { $0 != ";" }.trimmingSpacesAndTabs
                return streamedMediaTypes.contains(type.lowercased())
            }
        }
    }

    /// Where `request` goes: its path (with its query) on the base URL ``server`` names.
    private func target(of request: HTTPRequest, baseURL: URL) throws(NetworkError) -> RequestTarget {
        let path = request.path ?? "/"
        switch server {
        case .service:
            return .path(path)
        case .client:
            // Joined as the service joins a path to its environment's base URL.
            return .url(try ServiceEnvironment(name: "client", baseURL: baseURL).resolve(path, useCDN: false))
        }
    }

    /// The request's fields without those that frame the body, which the kit writes itself;
    /// the same fields, not a copy, when they have none.
    private static func sentFields(_ fields: HTTPFields) -> HTTPFields {
        guard fields.contains(where: { $0.name == .contentLength || $0.name == .transferEncoding }) else { return fields }
        var fields = fields
        fields.removeAll { $0.name == .contentLength || $0.name == .transferEncoding }
        return fields
    }

    /// The response `head` describes, its fields as they came. A body the kit inflated reaches
    /// the client inflated, so its `Content-Encoding` and `Content-Length`, which describe the
    /// bytes on the wire, are left out.
    static func response(_ head: ResponseHead) -> HTTPResponse {
        var fields = head.headerFields
        if head.contentCoding != nil {
            fields[.contentEncoding] = nil
            fields[.contentLength] = nil
        }
        return HTTPResponse(status: head.status, headerFields: fields)
    }

    /// The body of a response read whole: none for `HEAD`.
    private static func body(_ data: Data, method: HTTPRequest.Method) -> HTTPBody? {
        method == .head ? nil : HTTPBody(data)
    }
}

/// The parser of an answer read whole: the response as it is, for the generated code to decode.
/// Lightweight: it returns at once, so it runs where the body arrived, without a hop to the
/// parsing queue.
private struct WholeResponse: ResponseParser {
    func parse(_ response: Response) -> Response {
        response
    }

    var isLightweight: Bool { true }
}

/// A streamed answer's pieces: its head, once, before the first bytes of its body.
private enum Piece: Sendable {
    case head
    case bytes(Data)
}

/// The stream parser of a streamed answer: the body's chunks as they are, after a `.head` that
/// says the head has arrived (with the first chunk, or at the end of an empty body).
private struct HeadAndChunks: StreamParser {
    private var headPending = false

    mutating func begin(_ response: Response) throws {
        headPending = true
    }

    mutating func parse(_ chunk: Data) throws -> [Piece] {
        defer { headPending = false }
        return headPending ? [.head, .bytes(chunk)] : [.bytes(chunk)]
    }

    mutating func finish() throws -> [Piece] {
        defer { headPending = false }
        return headPending ? [.head] : []
    }
}

/// A streamed answer: its head, and its body as an `HTTPBody` that yields the rest.
private enum StreamedAnswer {
    /// Starts `stream` and returns its response once the head has arrived.
    static func receive(_ stream: StreamRequest<Piece>, from service: Service) async throws -> (HTTPResponse, HTTPBody?) {
        var iterator = service.stream(stream).makeAsyncIterator()
        let first: Piece?
        do {
            first = try await iterator.next()
        } catch {
            guard case .httpStatus(let code, let data, let headerFields) = error else { throw error }
            let head = stream.responseHead ?? ResponseHead(url: nil, status: .init(code: code), headerFields: headerFields)
            return (ServiceClientTransport.response(head), HTTPBody(data))
        }
        guard first != nil, let head = stream.responseHead else {
            // No body began: a 204 (or a body-less answer the stream accepted).
            let head = stream.responseHead ?? ResponseHead(url: nil, status: 204)
            return (ServiceClientTransport.response(head), nil)
        }
        let chunks = RemainingChunks(IteratorBox(iterator))
        let length: HTTPBody.Length = head.contentCoding == nil
            ? head.headerFields[.contentLength].flatMap { Int64($0) }.map { .known($0) } ?? .unknown
            : .unknown
        return (ServiceClientTransport.response(head), HTTPBody(chunks, length: length, iterationBehavior: .single))
    }
}

/// The iterator of a streamed answer, handed once to the body's one iteration. Dropping it
/// unread cancels the request (as dropping an ``NetworkKit/ItemStream``'s iterator does).
///
/// `@unchecked Sendable`: `lock` guards `iterator`, which is taken out exactly once and used only
/// by whoever took it.
private final class IteratorBox: @unchecked Sendable {
    private let lock = NSLock()
    private var iterator: ItemStream<Piece>.Iterator?

    init(_ iterator: ItemStream<Piece>.Iterator) {
        self.iterator = iterator
    }

    /// The iterator, the first time; nil after.
    func take() -> ItemStream<Piece>.Iterator? {
        lock.withLock {
            defer { iterator = nil }
            return iterator
        }
    }
}

/// The body's bytes after the head, for `HTTPBody`.
private struct RemainingChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let box: IteratorBox

    init(_ box: IteratorBox) {
        self.box = box
    }

    func makeAsyncIterator() -> Iterator {
        Iterator(box: box, inner: box.take())
    }

    struct Iterator: AsyncIteratorProtocol {
        let box: IteratorBox
        var inner: ItemStream<Piece>.Iterator?

        mutating func next() async throws -> ArraySlice<UInt8>? {
            while let piece = try await inner?.next() {
                if case .bytes(let data) = piece { return ArraySlice(data) }
            }
            inner = nil
            return nil
        }
    }
}
#endif
