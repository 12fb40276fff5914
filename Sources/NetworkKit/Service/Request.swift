import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request and everything that happens to it: what to send, how to parse the answer,
/// and who to tell.
///
/// ```swift
/// let request = Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
///                                                         contentKeyPath: "content/entrance"))
/// request.addCompletionHandler { request, result in print(result) }
/// Service.shared.start(request)            // or: let feed = try await Service.shared.send(request)
/// ```
///
/// The service holds the request from `start` until its handlers have run, so callers need not.
/// Set its properties before starting it; changes after that do not affect the running transfer.
///
/// This is the typed layer: the parser's `Output` and the handlers that receive it. Everything
/// else (lifecycle, options, progress, cancellation) is ``AnyRequest``'s, written once for every
/// output type.
///
/// `@unchecked Sendable`, restated from ``AnyRequest`` (whose state machine is read and written only under its lock):
/// this class adds only `parser`, a `let` of a Sendable type.
public final class Request<Output: Sendable>: AnyRequest, @unchecked Sendable {
    /// Called once, on the main actor, when the request finishes, with the request and its value
    /// or error.
    public typealias CompletionHandler = @MainActor @Sendable (Request<Output>, Result<Output, NetworkError>) -> Void
    /// Called on the main actor as bytes move, with the request and its progress.
    public typealias ProgressHandler = @MainActor @Sendable (Request<Output>, TransferProgress) -> Void
    /// Called on the main actor when the state changes.
    public typealias StateHandler = @MainActor @Sendable (Request<Output>, RequestState) -> Void

    /// Turns the response into `Output`, off the main actor.
    public let parser: any ResponseParser<Output>

    /// Creates a request for `target`: an absolute URL, or a path the service resolves on its
    /// base URL (or CDN URL when `useCDN` is set).
    package init(
        _ target: RequestTarget,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.parser = parser
        super.init(options: RequestOptions(target: target, method: method, parameters: parameters, headerFields: headerFields),
                   parser: parser)
    }

    /// Creates a request for an absolute URL.
    public convenience init(
        url: URL,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(.url(url), method: method, parameters: parameters, headerFields: headerFields, parser: parser)
    }

    /// Creates a request for an absolute URL given as text, for the package's own tools and
    /// tests; text that is not an absolute URL fails the request with `NetworkError.invalidURL`
    /// when it starts. Apps give a `URL` (``init(url:method:parameters:headerFields:parser:)``).
    package convenience init(
        url: String,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(RequestTarget(absolute: url), method: method, parameters: parameters, headerFields: headerFields, parser: parser)
    }

    /// Creates a request for a path on the service's base URL (or CDN URL with `useCDN`).
    public convenience init(
        path: String,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(.path(path), method: method, parameters: parameters, headerFields: headerFields, parser: parser)
    }
}

extension Request where Output == Data {
    /// A request for an absolute URL whose result is the raw body.
    public convenience init(
        url: URL,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(.url(url), method: method, parameters: parameters, headerFields: headerFields, parser: DataParser())
    }

    /// A request for an absolute URL given as text whose result is the raw body, for the
    /// package's own tools and tests (see ``init(url:method:parameters:headerFields:parser:)``).
    package convenience init(
        url: String,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(RequestTarget(absolute: url), method: method, parameters: parameters, headerFields: headerFields,
                  parser: DataParser())
    }

    /// A request for a path on the service's base URL whose result is the raw body.
    public convenience init(
        path: String,
        method: HTTPRequest.Method = .get,
        parameters: [String: JSON] = [:],
        headerFields: HTTPFields = [:]
    ) {
        self.init(.path(path), method: method, parameters: parameters, headerFields: headerFields, parser: DataParser())
    }
}
