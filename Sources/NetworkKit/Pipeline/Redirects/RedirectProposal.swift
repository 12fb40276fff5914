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
    static func next(after request: OutgoingRequest, head: ResponseHead) -> OutgoingRequest? {
        guard statuses.contains(head.status.code), let location = head.headerFields[.location],
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL else { return nil }
        var next = request
        do { try next.setURL(target) } catch { return nil }
        let method = request.head.method
        if (head.status == .seeOther && method != .head) || ([301, 302].contains(head.status.code) && method == .post) {
            next.head.method = .get
            next.body = .none
            for name: HTTPField.Name in [.contentType, .contentLength, .contentEncoding] {
                next.head.headerFields[name] = nil
            }
        }
        return next
    }
}
