import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// A download to disk of `path` on the service's base URL, whose finished file goes to
    /// `parser` on the parsing queue (e.g. `FileContentsParser(JSONParser())`).
    public convenience init(
        path: String,
        downloadTo destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(download: .path(path), to: destination, method: method, parameters: parameters, headerFields: headerFields,
                  parser: parser)
    }

    /// A download to disk of an absolute URL, whose finished file goes to `parser`.
    public convenience init(
        url: URL,
        downloadTo destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(download: .url(url), to: destination, method: method, parameters: parameters, headerFields: headerFields,
                  parser: parser)
    }

    /// A download to disk of `target`, for the initializers above and the kit's own modules.
    package convenience init(
        download target: RequestTarget,
        to destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(target, method: method, parameters: parameters, headerFields: headerFields, parser: parser)
        download = Download(to: destination)
    }

    /// A request sent as `request` says (YTKNetwork's `buildCustomUrlRequest`): it skips the
    /// interceptors' prepare step (no base URL, parameters, common headers or parameters are
    /// applied). Their adapt step (URL filters, your interceptors, signing), the parser chain,
    /// handlers, limits, retries and cancel work as for any request.
    public convenience init(_ request: OutgoingRequest, parser: some ResponseParser<Output>) {
        self.init(request.url.map(RequestTarget.url) ?? .path(""),
                  method: request.head.method, parser: parser)
        self[option: \.customRequest] = .success(request)
    }

    /// A request sent as Foundation's `urlRequest` says, converted at the edge
    /// (``OutgoingRequest/init(_:)``): as ``init(_:parser:)``. A `urlRequest` the kit cannot send
    /// (no http: or https: URL, a method or header field name that is not a token) fails the
    /// request when it is sent, with the conversion's `NetworkError`.
    public convenience init(urlRequest: URLRequest, parser: some ResponseParser<Output>) {
        self.init(urlRequest.url.map(RequestTarget.url) ?? .path(""),
                  method: HTTPRequest.Method(urlRequest.httpMethod?.uppercased() ?? "GET") ?? .get, parser: parser)
        do {
            self[option: \.customRequest] = .success(try OutgoingRequest(urlRequest))
        } catch {
            self[option: \.customRequest] = .failure(error)
        }
    }
}

extension AnyRequest {
    /// Saves the response body to disk instead of memory (see `Download`); nil for an
    /// in-memory request. A ``StreamRequest``'s body is its items: it keeps none, and stays a
    /// stream.
    public var download: Download? {
        get {
            guard case .download(let download) = self[option: \.kind] else { return nil }
            return download
        }
        set {
            if case .stream = self[option: \.kind] { return }
            self[option: \.kind] = newValue.map(RequestKind.download) ?? .plain
        }
    }
}

extension Request where Output == DownloadedFile {
    /// A download to disk of `path` on the service's base URL; its value is the finished file.
    ///
    /// ```swift
    /// let request = Request(path: "/files/report.pdf", downloadTo: .directory(downloads))
    /// request.addProgressHandler { _, progress in print(progress.fractionCompleted ?? 0) }
    /// let file = try await service.send(request)
    /// ```
    public convenience init(
        path: String,
        downloadTo destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(download: .path(path), to: destination, method: method, parameters: parameters, headerFields: headerFields,
                  parser: DownloadParser())
    }

    /// A download to disk of an absolute URL; its value is the finished file.
    public convenience init(
        url: URL,
        downloadTo destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(download: .url(url), to: destination, method: method, parameters: parameters, headerFields: headerFields,
                  parser: DownloadParser())
    }

    /// A download to disk of `target`, for the initializers above and the kit's own modules.
    package convenience init(
        download target: RequestTarget,
        to destination: Download.Destination,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(download: target, to: destination, method: method, parameters: parameters, headerFields: headerFields,
                  parser: DownloadParser())
    }
}
