import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The head of an HTTP response: everything but the body.
public struct ResponseHead: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL?
    /// The status (`head.status == .partialContent`, `head.status.code`, `.kind`).
    public var status: HTTPResponse.Status
    /// The header fields in the order the server sent them, repeated fields apart (each
    /// `Set-Cookie` is its own field); names compare without regard to case.
    public var headerFields: HTTPFields {
        didSet { contentEncoding = headerFields[.contentEncoding] }
    }
    /// The `Content-Encoding` value, looked up once when the fields are set: the transport, the
    /// size limits and progress all ask for it.
    private(set) var contentEncoding: String?
    /// The version of HTTP the response came over, when the transport reports it.
    public var httpVersion: HTTPVersion?

    /// Creates a head from its parts.
    public init(url: URL?, status: HTTPResponse.Status, headerFields: HTTPFields = [:], httpVersion: HTTPVersion? = nil) {
        self.url = url
        self.status = status
        self.httpVersion = httpVersion
        self.headerFields = headerFields
        contentEncoding = headerFields[.contentEncoding]
    }

    /// The coding of a content-encoded body (`Content-Encoding: gzip` or `deflate`), if the kit
    /// knows it. The body reaches parsers inflated.
    public var contentCoding: ContentCoding? {
        contentEncoding.flatMap(ContentCoding.init(headerValue:))
    }

    /// The body length `Content-Length` announces, unless the body is content-encoded: then the
    /// length counts bytes that reach parsers inflated, never as such.
    var deliveredLength: Int64? {
        guard let length = headerFields[.contentLength].flatMap({ Int64($0) }), length > 0,
              contentEncoding == nil else { return nil }
        return length
    }
}

extension HTTPResponse.Status {
    /// The status of `code` as a server or a file gave it, or nil when it is outside 0...999,
    /// which swift-http-types does not hold (its `init(code:)` traps there).
    package init?(received code: Int) {
        guard (0...999).contains(code) else { return nil }
        self.init(code: code)
    }
}

extension NetworkError {
    /// The failure of a transfer whose answer has a status code swift-http-types cannot hold
    /// (see `HTTPResponse.Status.init(received:)`): every transport reports it in these words.
    package static func unreadableStatus(_ code: some BinaryInteger) -> NetworkError {
        .failed(.badServerResponse, detail: "status code \(code) is not three digits")
    }
}
