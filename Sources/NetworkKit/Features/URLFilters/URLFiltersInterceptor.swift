import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the service's URL filters, in order, on the URL of every attempt (YTKNetwork's URL
/// filters), after the parameters are in it. Created by `ServiceConfiguration.urlFilters`.
struct URLFiltersInterceptor: BuiltInInterceptor {
    static let place = BuiltInPlace.leading(rank: 3)
    static let prepares = false

    /// The filters, in the order they run.
    var filters: [any URLFilter]

    /// Runs `filters` on every request.
    init(_ filters: [any URLFilter]) {
        self.filters = filters
    }

    /// The request with its URL through every filter.
    /// - Throws: `NetworkError.invalidRequest` naming the filter that failed.
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        guard var url = request.url else { return request }
        let method = request.head.method
        for filter in filters {
            do {
                url = try filter.filter(url, method: method)
            } catch {
                throw NetworkError.invalidRequest("URL filter \(type(of: filter)) failed: \(error)")
            }
        }
        var filtered = request
        try filtered.setURL(url)
        return filtered
    }
}
