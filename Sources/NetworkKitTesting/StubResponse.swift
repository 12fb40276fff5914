import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``StubTransport`` answers to a request: the status, header fields and body a server
/// would send, how the body is cut into chunks, how long each part takes, and what goes wrong.
///
/// The body is what crosses the wire: with `Content-Encoding: gzip` or `deflate` it holds the
/// compressed bytes, and the stub delivers them as sent, for the kit to inflate.
///
///     let slow = StubResponse.json(#"{"code": 0}"#)
///         .chunked(into: 4)
///         .delayed(head: .milliseconds(200), betweenChunks: .milliseconds(50))
public struct StubResponse: Sendable {
    /// The status (`.ok`, `.notFound`, or a code: `503`).
    public var status: HTTPResponse.Status
    /// The header fields, in the order a server would send them. Unless one is given, the stub
    /// announces the body's length in `Content-Length`, as a server that knows its body does.
    public var headerFields: HTTPFields
    /// The body as it crosses the wire (compressed when `headerFields` name a `Content-Encoding`).
    public var body: Data
    /// How the body is cut into the chunks the transport delivers.
    public var chunking: Chunking
    /// How long the head takes to arrive after the request was sent.
    public var headDelay: Duration
    /// How long each chunk after the first takes to arrive.
    public var chunkDelay: Duration
    /// What goes wrong with the transfer, if anything.
    public var fault: Fault?
    /// For a WebSocket answer, the script that plays the server's side of the connection.
    var webSocketScript: StubWebSocketScript?

    /// How a body is cut into chunks.
    public enum Chunking: Sendable, Equatable {
        /// One chunk holding the whole body.
        case whole
        /// This many chunks of nearly equal size (fewer when the body has fewer bytes).
        case pieces(Int)
        /// Chunks of this many bytes, the last one shorter.
        case size(Int64)
    }

    /// A failure of the transfer, as a real network produces one.
    public enum Fault: Sendable {
        /// The head and the first `afterBytes` body bytes arrive, then the connection drops: the
        /// transfer fails with `.networkConnectionLost`.
        case dropConnection(afterBytes: Int64)
        /// The server falls silent: before the head when `afterBytes` is nil, else after the head
        /// and that many body bytes. The transfer fails with `.timedOut` once the
        /// request's `timeout` has passed without anything arriving; a request with no
        /// timeout waits until it is cancelled.
        case timeOut(afterBytes: Int64?)
        /// No answer at all: the transfer fails with `error` (`.notConnectedToInternet`,
        /// `.cannotFindHost`…) once the head delay has passed.
        case failure(URLError)
    }

    /// An answer with `status`, `headerFields` and `body`, delivered whole and at once.
    public init(status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:], body: Data = Data()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        chunking = .whole
        headDelay = .zero
        chunkDelay = .zero
        fault = nil
    }

    /// The `101` that opens a WebSocket, whose server's side `script` plays (see
    /// ``StubWebSocketPeer``); the connection closes with 1000 when the script returns without
    /// closing it, and with 1011 when it throws. `subprotocol` is the server's pick (the upgrade
    /// fails, as with a real server, unless the app offered it); `headerFields` go in the `101`.
    ///
    ///     stub.answer(.get, .path("/prices"), with: [StubResponse(status: 401), .webSocket { peer in
    ///         try peer.send(.text("EURUSD 1.0842"))
    ///     }])
    public static func webSocket(subprotocol: String? = nil, headerFields: HTTPFields = [:],
                                 script: @escaping @Sendable (StubWebSocketPeer) async throws -> Void) -> StubResponse {
        var response = StubResponse(status: 101, headerFields: headerFields)
        if let subprotocol { response.headerFields[.secWebSocketProtocol] = subprotocol }
        response.headerFields[.upgrade] = "websocket"
        response.headerFields[.connection] = "Upgrade"
        response.webSocketScript = script
        return response
    }

    /// A JSON answer whose body is `text` as UTF-8, typed `application/json`.
    public static func json(_ text: String, status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:]) -> StubResponse {
        var headerFields = headerFields
        if headerFields[.contentType] == nil { headerFields[.contentType] = "application/json; charset=utf-8" }
        return StubResponse(status: status, headerFields: headerFields, body: Data(text.utf8))
    }

    /// A JSON answer whose body is `value` serialized.
    /// - Throws: when `value` holds a number JSON cannot write (NaN, infinity).
    public static func json(_ value: JSON, status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:]) throws -> StubResponse {
        json(String(decoding: try value.serialized(), as: UTF8.self), status: status, headerFields: headerFields)
    }

    /// A JSON answer whose body is `value` encoded with `encoder`.
    /// - Throws: what `encoder` throws.
    public static func json(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder(), status: HTTPResponse.Status = .ok,
                            headerFields: HTTPFields = [:]) throws -> StubResponse {
        json(String(decoding: try encoder.encode(value), as: UTF8.self), status: status, headerFields: headerFields)
    }

    /// A plain-text answer, typed `text/plain`.
    public static func text(_ text: String, status: HTTPResponse.Status = .ok, headerFields: HTTPFields = [:]) -> StubResponse {
        var headerFields = headerFields
        if headerFields[.contentType] == nil { headerFields[.contentType] = "text/plain; charset=utf-8" }
        return StubResponse(status: status, headerFields: headerFields, body: Data(text.utf8))
    }

    /// An event stream (`text/event-stream`) of `events`, each with its `event:` (unless it is a
    /// message), `id:` (when set) and `data:` lines, cut into as many chunks as there are events
    /// (not at their boundaries: a stream parser must not care). Each connection of a stream that
    /// reconnects takes the next answer in turn, and a `204` (`StubResponse(status: 204)`) ends it.
    public static func events(_ events: [ServerSentEvent], retry: Duration? = nil) -> StubResponse {
        var text = retry.map { "retry: \(Int64($0 / .milliseconds(1)))\n\n" } ?? ""
        var chunks = text.isEmpty ? 0 : 1
        for event in events {
            if event.type != "message" { text += "event: \(event.type)\n" }
            if !event.id.isEmpty { text += "id: \(event.id)\n" }
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            text += "\n"
            chunks += 1
        }
        return StubResponse(status: 200, headerFields: [.contentType: "text/event-stream"], body: Data(text.utf8))
            .chunked(into: max(chunks, 1))
    }

    /// A redirect to `location` (absolute, or relative to the request's URL) with an empty body.
    /// The kit follows it under the request's redirect policy, as with every transport.
    public static func redirect(to location: String, status: HTTPResponse.Status = .found) -> StubResponse {
        StubResponse(status: status, headerFields: [.location: location])
    }

    /// No answer: the transfer fails with `error`.
    public static func failure(_ error: URLError) -> StubResponse {
        var response = StubResponse()
        response.fault = .failure(error)
        return response
    }

    /// This answer with its body delivered in `count` chunks of nearly equal size.
    public func chunked(into count: Int) -> StubResponse {
        var copy = self
        copy.chunking = .pieces(count)
        return copy
    }

    /// This answer with its body delivered in chunks of `size` bytes.
    public func chunked(bySize size: Int64) -> StubResponse {
        var copy = self
        copy.chunking = .size(size)
        return copy
    }

    /// This answer with the head arriving `head` after the request, and each chunk after the
    /// first `betweenChunks` after the one before.
    public func delayed(head: Duration = .zero, betweenChunks: Duration = .zero) -> StubResponse {
        var copy = self
        copy.headDelay = head
        copy.chunkDelay = betweenChunks
        return copy
    }

    /// This answer with the connection dropped after `bytes` body bytes (see ``Fault/dropConnection(afterBytes:)``).
    public func droppingConnection(afterBytes bytes: Int64) -> StubResponse {
        var copy = self
        copy.fault = .dropConnection(afterBytes: bytes)
        return copy
    }

    /// This answer with the server falling silent after `bytes` body bytes, or before the head
    /// when nil (see ``Fault/timeOut(afterBytes:)``).
    public func timingOut(afterBytes bytes: Int64? = nil) -> StubResponse {
        var copy = self
        copy.fault = .timeOut(afterBytes: bytes)
        return copy
    }

    /// The header fields as they are sent: `headerFields`, with `Content-Length` added unless given.
    package var sentHeaderFields: HTTPFields {
        guard headerFields[.contentLength] == nil else { return headerFields }
        var fields = headerFields
        fields[.contentLength] = String(body.count)
        return fields
    }

    /// How many body bytes cross the wire before the fault, if any, stops the transfer.
    package var sentBodyLength: Int {
        switch fault {
        case .dropConnection(let bytes), .timeOut(let bytes?): Int(min(max(bytes, 0), Int64(body.count)))
        case .timeOut(.none), .failure: 0
        case nil: body.count
        }
    }

    /// The chunks the body crosses the wire in, cut as `chunking` says and ending where the
    /// fault stops the transfer.
    package var sentChunks: [Data] {
        let length = body.count
        let bounds: [Int] = switch chunking {
        case .whole: [0, length]
        case .pieces(let count): (0...max(count, 1)).map { length * $0 / max(count, 1) }
        case .size(let size): Array(stride(from: 0, to: length, by: Int(clamping: max(size, 1)))) + [length]
        }
        let end = sentBodyLength, base = body.startIndex
        return zip(bounds, bounds.dropFirst()).compactMap { lower, upper in
            let upper = min(upper, end)
            return lower < upper ? body.subdata(in: (base + lower)..<(base + upper)) : nil
        }
    }
}
