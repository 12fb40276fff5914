import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The head of an HTTP response: everything but the body.
public struct ResponseHead: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL?
    /// The HTTP status code.
    public var statusCode: Int
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
    public init(url: URL?, statusCode: Int, headerFields: HTTPFields = [:], httpVersion: HTTPVersion? = nil) {
        self.url = url
        self.statusCode = statusCode
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
