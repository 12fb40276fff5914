import Foundation

/// Rewrites the URL of every request a service sends (YTKNetwork's `YTKUrlFilterProtocol`):
/// add common query arguments, move paths, point at a mock server. Filters run in order, in the
/// service's ``ServiceConfiguration/urlFilters``, on each attempt's URL with the parameters in
/// it, before the interceptors you add.
public protocol URLFilter: Sendable {
    /// The URL to send instead of `url`; throw to fail the request before anything is sent.
    func filter(_ url: URL, method: HTTPRequest.Method) throws -> URL
}

/// Appends query arguments to every URL (YTKNetwork's `YTKUrlArgumentsFilter`), escaped as
/// RFC 3986 asks, after any query the URL has and before its fragment. An argument the URL
/// already carries is left as the request set it.
public struct QueryArgumentsFilter: URLFilter {
    /// The arguments, appended in name order.
    public var arguments: [String: String]

    /// Creates the filter, e.g. `QueryArgumentsFilter(["app_version": "2.1", "platform": "ios"])`.
    public init(_ arguments: [String: String]) {
        self.arguments = arguments
    }

    /// `url` with the arguments it lacks appended.
    public func filter(_ url: URL, method: HTTPRequest.Method) throws -> URL {
        try OutgoingRequestBuilder.appendingQuery(arguments.mapValues { JSON.string($0) }, to: url, keepingExisting: true)
    }
}
