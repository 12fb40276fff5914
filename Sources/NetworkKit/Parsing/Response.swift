import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the parser chain gets: the HTTP head and the whole body.
public struct Response: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL?
    /// The status (`response.status == .notFound`, `response.status.code`, `.kind`).
    public var status: HTTPResponse.Status
    /// The header fields in the order the server sent them, repeated fields apart; names
    /// compare without regard to case.
    public var headerFields: HTTPFields
    /// The body bytes, inflated if they were content-encoded.
    public var data: Data
    /// The service's envelope keys, which JSON and model parsers apply (see `ResponseEnvelope`).
    public var envelope: ResponseEnvelope?
    /// The service's `JSONDecoder` (``ServiceConfiguration/jsonDecoder``), which model parsers
    /// use unless they have their own.
    public var jsonDecoder: JSONDecoder?
    /// For a download to disk, the file the body was saved to (`data` is then empty).
    public var downloadedFile: DownloadedFile?
    /// For a WebSocket request, the connection its upgrade opened (`WebSocketParser` takes it).
    package var webSocket: (any WebSocketConnection)?
    /// For a WebSocket request whose options reconnect, how it opens its next connection.
    package var webSocketReopening: WebSocketReopening?
    /// For a WebSocket request, where the socket handed out is kept for the service's shutdown.
    package var openWebSockets: OpenWebSockets?
    /// Where the kit's parsers note the business status they checked (set by the pipeline).
    var notes: ParseNotes?

    /// Creates a response from its parts; parsers and tests build these directly.
    public init(url: URL?, status: HTTPResponse.Status, headerFields: HTTPFields = [:], data: Data) {
        self.url = url
        self.status = status
        self.headerFields = headerFields
        self.data = data
    }

    /// The media type of `Content-Type`, lowercased and without parameters (`application/json`).
    public var mimeType: String? {
        guard let raw = headerFields[.contentType] else { return nil }
        let type = raw.split(separator: ";", maxSplits: 1).first.map(String.init) ?? raw
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `charset` parameter of `Content-Type`, lowercased and unquoted, if any.
    public var charset: String? {
        guard let raw = headerFields[.contentType] else { return nil }
        for parameter in raw.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                  pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"'")).lowercased()
        }
        return nil
    }
}

extension Response {
    /// A response from its head and body.
    init(_ head: ResponseHead, data: Data) {
        url = head.url
        status = head.status
        headerFields = head.headerFields
        self.data = data
    }

    /// The head the response was made from: its URL, status and headers.
    var head: ResponseHead {
        ResponseHead(url: url, status: status, headerFields: headerFields)
    }
}

/// How a reconnecting WebSocket opens its next connection, as the pipeline sets it up.
package struct WebSocketReopening: Sendable {
    /// When the socket opens a new connection, from the request's `WebSocketOptions`.
    package let policy: StreamReconnection
    /// Sends the upgrade again through the service (the interceptors adapting it anew) and
    /// returns the new `101`'s response, its connection in ``Response/webSocket``.
    package let reopen: @Sendable () async throws(NetworkError) -> Response
    /// Waits `duration` on the service's clock (`ServiceConfiguration.clock`); throws when the
    /// waiting task is cancelled.
    package let wait: @Sendable (Duration) async throws -> Void
}
