import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request and everything that happens to it: what to send, how to parse the answer,
/// and who to tell.
///
/// ```swift
/// let request = Request(path: "/feed", parser: JSONParser(checkKeyPath: "code", okValue: 0,
///                                                         contentKeyPath: "content/entrance"))
/// request.addCompletionHandler { request, result in print(result) }
/// Service.shared.start(request)            // or: let feed = try await Service.shared.send(request)
/// ```
///
/// The service holds the request from `start` until its handlers have run, so callers need not.
/// Set its properties before starting it; changes after that do not affect the running transfer.
public final class Request<Output: Sendable>: Sendable {
    /// Called once when the request lands, with the request and its value or error.
    public typealias CompletionHandler = @Sendable (Request<Output>, Result<Output, NetworkError>) -> Void
    /// Called as bytes move, with the request and its progress.
    public typealias ProgressHandler = @Sendable (Request<Output>, TransferProgress) -> Void
    /// Called when the state changes.
    public typealias StateHandler = @Sendable (Request<Output>, RequestState) -> Void

    /// This request's process-unique identity.
    public let id = RequestID.next()
    /// Turns the response into `Output` on the parsing queue.
    public let parser: any ResponseParser<Output>

    let options: Protected<RequestOptions>
    let lifecycle: Protected<Lifecycle<Output>> = makeLifecycle()
    /// Whether a progress handler was ever added: a concrete flag the per-chunk path reads
    /// before touching the generic lifecycle.
    let isProgressWatched = Protected(false)

    /// Creates a request for an absolute URL, or a path resolved on the service's base URL
    /// (or CDN URL when `useCDN` is set).
    public init(
        url: String,
        method: HTTPMethod = .get,
        parameters: [String: JSON] = [:],
        headers: [String: String] = [:],
        parser: some ResponseParser<Output>
    ) {
        self.parser = parser
        options = Protected(RequestOptions(target: url, method: method, parameters: parameters, headers: headers))
    }

    /// Creates a request for a path on the service's base URL (or CDN URL with `useCDN`).
    public convenience init(
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: JSON] = [:],
        headers: [String: String] = [:],
        parser: some ResponseParser<Output>
    ) {
        self.init(url: path, method: method, parameters: parameters, headers: headers, parser: parser)
    }

    /// Where the request is in its lifecycle.
    public var state: RequestState {
        lifecycle.withLock { $0.state }
    }

    /// The response head of the latest attempt, once it has arrived.
    public var responseHead: ResponseHead? {
        lifecycle.withLock { $0.head }
    }

    /// How many times the request has been sent so far (retries included).
    public var attemptCount: Int {
        lifecycle.withLock { $0.attempts }
    }

    /// What was measured about the request, once it has landed: duration, attempts, bytes, status.
    public var metrics: RequestMetrics? {
        lifecycle.withLock { $0.metrics }
    }
}

extension Request where Output == Data {
    /// A request whose result is the raw body.
    public convenience init(
        url: String,
        method: HTTPMethod = .get,
        parameters: [String: JSON] = [:],
        headers: [String: String] = [:]
    ) {
        self.init(url: url, method: method, parameters: parameters, headers: headers, parser: DataParser())
    }

    /// A request for a path on the service's base URL whose result is the raw body.
    public convenience init(
        path: String,
        method: HTTPMethod = .get,
        parameters: [String: JSON] = [:],
        headers: [String: String] = [:]
    ) {
        self.init(url: path, method: method, parameters: parameters, headers: headers, parser: DataParser())
    }
}

/// A new request's lifecycle. Specialized for the built-in parsers' outputs: the generic version
/// looks up the metadata of each handler type at run time, on every request.
@_specialize(where Output == JSON)
@_specialize(where Output == Data)
@_specialize(where Output == String)
func makeLifecycle<Output: Sendable>() -> Protected<Lifecycle<Output>> {
    Protected(Lifecycle<Output>())
}
