import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam between the request pipeline and the network: sends one prepared request and
/// streams back what happens to it. A `Service` owns exactly one transport (its "session");
/// `URLSessionTransport` is the default, and nothing above this protocol assumes URLSession.
public protocol Transport: Sendable {
    /// Starts sending `request` and returns at once; its body is `bodyFile`'s contents when
    /// given (streamed from disk), else `request.httpBody`. `events` hears, in this order: upload
    /// progress, the response head once, body chunks as they arrive, then exactly one completion
    /// (also after `cancel()`, with a cancellation error).
    func start(_ request: URLRequest, bodyFile: URL?, events: any TransportEvents) -> any TransportTask

    /// Lets running transfers finish and releases the transport's resources. The service calls
    /// this when it is freed.
    func finishAndInvalidate()
}

/// One transfer under way, as a transport hands it back.
public protocol TransportTask: Sendable {
    /// Stops the transfer; its events end with a completion carrying a cancellation error.
    func cancel()
}

/// Receives what happens to one transfer, on the transport's own serial context: calls for one
/// transfer never overlap and arrive in order.
public protocol TransportEvents: AnyObject, Sendable {
    /// Request body bytes sent so far, and how many there are in all when known.
    func transportDidSend(bytes: Int64, of total: Int64?)
    /// The server redirected to `proposed` with the head `response`: return the request to
    /// follow with (`proposed` or a changed copy), or nil to make the redirect the response.
    func transportWillRedirect(to proposed: URLRequest, response: ResponseHead) -> URLRequest?
    /// The response head: status, headers, and the URL that answered (after redirects).
    func transportDidReceive(head: ResponseHead)
    /// The next part of the response body, as delivered (after any content decoding the
    /// transport does itself).
    func transportDidReceive(chunk: Data)
    /// The end: nil when the whole response arrived, otherwise why not.
    func transportDidComplete(error: (any Error)?)
}

/// The head of an HTTP response: everything but the body.
public struct ResponseHead: Sendable {
    /// The URL that answered (after redirects).
    public var url: URL?
    /// The HTTP status code.
    public var statusCode: Int
    /// Header fields, with names as the server sent them.
    public var headers: [String: String] {
        didSet { contentEncoding = Response.field("Content-Encoding", in: headers) }
    }
    /// The `Content-Encoding` value, looked up once when the headers are set: the transport, the
    /// size limits and progress all ask for it.
    private(set) var contentEncoding: String?

    /// Creates a head from its parts.
    public init(url: URL?, statusCode: Int, headers: [String: String]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        contentEncoding = Response.field("Content-Encoding", in: headers)
    }

    /// The value of a header, looked up without regard to case.
    public func header(_ name: String) -> String? {
        Response.field(name, in: headers)
    }

    /// The coding of a content-encoded body (`Content-Encoding: gzip` or `deflate`), if the kit
    /// knows it. Transports deliver such a body inflated.
    public var contentCoding: ContentCoding? {
        contentEncoding.flatMap(ContentCoding.init(headerValue:))
    }

    /// The body length `Content-Length` announces, unless the body is content-encoded: libcurl
    /// inflates it on the way in, so the length counts bytes that are never delivered as such.
    var deliveredLength: Int64? {
        guard let length = header("Content-Length").flatMap({ Int64($0) }), length > 0,
              contentEncoding == nil else { return nil }
        return length
    }
}
