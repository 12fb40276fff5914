import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which requests an answer of a ``StubTransport`` is for, beside their method.
public struct RequestPattern: Sendable, CustomStringConvertible {
    private let predicate: @Sendable (RecordedRequest) -> Bool
    /// The pattern in words, for the message of an ``UnmatchedRequest``.
    public let description: String

    /// A pattern that `predicate` decides, described as `description`.
    private init(_ description: String, predicate: @escaping @Sendable (RecordedRequest) -> Bool) {
        self.description = description
        self.predicate = predicate
    }

    /// True when `request` fits the pattern.
    public func matches(_ request: RecordedRequest) -> Bool {
        predicate(request)
    }

    /// Every request.
    public static var any: RequestPattern {
        RequestPattern("any URL") { _ in true }
    }

    /// Requests for exactly `url`, query included (`https://api.example.com/feed?page=2`).
    public static func url(_ url: String) -> RequestPattern {
        RequestPattern("URL \(url)") { $0.url?.absoluteString == url }
    }

    /// Requests whose URL path is `path` (`/feed`), whatever the host and query.
    public static func path(_ path: String) -> RequestPattern {
        RequestPattern("path \(path)") { $0.path == path }
    }

    /// Requests whose URL path starts with `prefix` (`/users/`).
    public static func pathPrefix(_ prefix: String) -> RequestPattern {
        RequestPattern("path prefix \(prefix)") { $0.path.hasPrefix(prefix) }
    }

    /// Requests for which `predicate` returns true.
    public static func matching(_ description: String = "a predicate",
                                _ predicate: @escaping @Sendable (RecordedRequest) -> Bool) -> RequestPattern {
        RequestPattern(description, predicate: predicate)
    }
}

/// A request as a ``StubTransport`` received it, with its body.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// The request as the transport got it (after the service's interceptors and signing).
    public let request: OutgoingRequest
    /// The body that was sent: the contents of the upload file when there was one, else the
    /// bytes in memory; empty when the request had none.
    public let body: Data
    /// The URL the request was sent to.
    public let url: URL?

    /// A record of `request` sending `body`.
    public init(request: OutgoingRequest, body: Data) {
        self.request = request
        self.body = body
        url = request.url
    }

    /// The HTTP method, as sent (`GET`).
    public var method: String {
        request.head.method.rawValue
    }

    /// The URL's path, percent-decoded (`/feed`); empty when there is no URL.
    public var path: String {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.path } ?? ""
    }

    /// The value of the query item `name`, percent-decoded; nil when the URL has none.
    public func query(_ name: String) -> String? {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems }?
            .first { $0.name == name }?.value
    }

    /// The value of the header field `name` (the values of repeated fields joined as
    /// swift-http-types joins them); nil when there is none.
    public func header(_ name: HTTPField.Name) -> String? {
        request.head.headerFields[name]
    }

    /// The method and URL, as in `GET https://api.example.com/feed`.
    public var description: String {
        "\(method) \(url?.absoluteString ?? "(no URL)")"
    }
}

/// A request that no answer of a ``StubTransport`` matched. The transfer fails with a
/// `.resourceUnavailable` `TransportError` whose detail names the request and whose underlying
/// error is this one, so the request finishes with `NetworkError.transport`; ``init(_:)`` finds
/// it again in the error a request finished with.
public struct UnmatchedRequest: Error, Sendable, CustomStringConvertible {
    /// The request nothing answered.
    public let request: RecordedRequest
    /// The answers the stub had, described as method and pattern, in the order they were tried.
    public let answers: [String]

    /// An error for `request`, which none of `answers` matched.
    init(request: RecordedRequest, answers: [String]) {
        self.request = request
        self.answers = answers
    }

    /// The unmatched request behind `error` (a `NetworkError` or `TransportError` from a stub),
    /// if any.
    public init?(_ error: any Error) {
        let failure: TransportError? = switch error {
        case NetworkError.transport(let wrapped): wrapped
        case let plain as TransportError: plain
        default: nil
        }
        guard let found = failure?.underlying as? UnmatchedRequest else { return nil }
        self = found
    }

    /// What went wrong, naming the request and the answers that were tried.
    public var description: String {
        let tried = answers.isEmpty ? "it has no answers" : "it has answers for " + answers.joined(separator: "; ")
        return "StubTransport has no answer for \(request): \(tried)"
    }

    /// The error the transfer fails with.
    var transportError: TransportError {
        TransportError(.resourceUnavailable, detail: description, underlying: self)
    }
}
