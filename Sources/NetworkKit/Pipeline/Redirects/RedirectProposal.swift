import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request a redirect proposes, by the rules browsers and URLSession follow: the `Location`
/// resolved against the request's URL; `303` (and `301`/`302` after a `POST`) continue as a `GET`
/// without a body; `307` and `308` keep the method and body. The request's `RedirectPolicy`
/// then decides whether to follow it.
enum RedirectProposal {
    /// The statuses that propose a redirect.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// As many redirects as one attempt follows before it fails with `URLError(.httpTooManyRedirects)`.
    static let maxRedirects = 16

    /// The next request after `head`, or nil when `head` proposes no redirect one can follow (not
    /// a redirect status, no `Location`, or a location that is not http(s)).
    static func next(after request: URLRequest, head: ResponseHead) -> URLRequest? {
        guard statuses.contains(head.statusCode), let location = head.header("Location"),
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              target.unsendableReason == nil else { return nil }
        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        if (head.statusCode == 303 && method != "HEAD") || ([301, 302].contains(head.statusCode) && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }
}
