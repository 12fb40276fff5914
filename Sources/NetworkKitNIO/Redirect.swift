#if NIO
import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request a redirect proposes, as URLSession builds it: the `Location` resolved against
/// the request's URL; `303` (and `301`/`302` after a `POST`) continue as a `GET` without a body;
/// `307` and `308` keep the method and body.
enum Redirect {
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The next request after `head`, or nil when `head` is no redirect one can follow (not a
    /// redirect status, no `Location`, or a location that is not http(s)).
    static func proposal(after request: URLRequest, head: ResponseHead) -> URLRequest? {
        guard statuses.contains(head.statusCode), let location = head.header("Location"),
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
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
#endif
