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
    /// Header fields, with names as the server sent them.
    public var headers: [String: String] {
        didSet { contentEncoding = HeaderFields.value("Content-Encoding", in: headers) }
    }
    /// The `Content-Encoding` value, looked up once when the headers are set: the transport, the
    /// size limits and progress all ask for it.
    private(set) var contentEncoding: String?
    /// Each `Set-Cookie` field on its own, in order: a transport that keeps repeated fields apart
    /// passes them; otherwise they are split back out of the joined `Set-Cookie` header.
    public var setCookieFields: [String]
    /// The version of HTTP the response came over, when the transport reports it.
    public var httpVersion: HTTPVersion?

    /// Creates a head from its parts. `setCookieFields` are the `Set-Cookie` fields one by one;
    /// when nil they are read from `headers`, where repeated fields were joined with ", ".
    public init(url: URL?, statusCode: Int, headers: [String: String], setCookieFields: [String]? = nil,
                httpVersion: HTTPVersion? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.headers = headers
        contentEncoding = HeaderFields.value("Content-Encoding", in: headers)
        self.setCookieFields = setCookieFields ?? HeaderFields.value("Set-Cookie", in: headers).map(SetCookieFields.split) ?? []
    }

    /// The value of a header, looked up without regard to case.
    public func header(_ name: String) -> String? {
        HeaderFields.value(name, in: headers)
    }

    /// The coding of a content-encoded body (`Content-Encoding: gzip` or `deflate`), if the kit
    /// knows it. The body reaches parsers inflated.
    public var contentCoding: ContentCoding? {
        contentEncoding.flatMap(ContentCoding.init(headerValue:))
    }

    /// The body length `Content-Length` announces, unless the body is content-encoded: then the
    /// length counts bytes that reach parsers inflated, never as such.
    var deliveredLength: Int64? {
        guard let length = header("Content-Length").flatMap({ Int64($0) }), length > 0,
              contentEncoding == nil else { return nil }
        return length
    }
}
