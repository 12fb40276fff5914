import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request does when the server answers with a redirect.
///
/// Whatever the policy, credentials do not travel to another origin: when a redirect leaves the
/// scheme, host and port the request was sent to, its `Authorization`, `Proxy-Authorization` and
/// `Cookie` headers are dropped (the session still sends that origin's own cookies). Nor is a
/// redirect followed to a scheme other than http: or https:, whatever the policy returns: the
/// 3xx answer is the response then. An attempt follows at most 16 redirects; the next fails it
/// with a `.transport` error whose code is `httpTooManyRedirects`, which the retry policy is
/// asked about like any failure.
public enum RedirectPolicy: Sendable {
    /// Follow redirects (the default).
    case follow
    /// Do not follow: the 3xx answer is the response, and fails unless its status is acceptable.
    case refuse
    /// Decide each redirect: return the request to send next (`proposed` or a changed copy),
    /// or nil to stop at the 3xx answer. `response` is the redirect's own head.
    case custom(@Sendable (_ proposed: OutgoingRequest, _ response: ResponseHead) -> OutgoingRequest?)

    /// The request to send for a redirect to `proposed`, or nil to stop, for a request first
    /// sent to `original`.
    func next(_ proposed: OutgoingRequest, after response: ResponseHead, original: URL?) -> OutgoingRequest? {
        let chosen: OutgoingRequest?
        switch self {
        case .follow: chosen = proposed
        case .refuse: chosen = nil
        case .custom(let decide): chosen = decide(proposed, response)
        }
        // Only to http: and https:, whatever a custom policy returns.
        guard var next = chosen, let url = next.url, url.unsendableReason == nil else { return nil }
        if !Self.sameOrigin(url, original) {
            for name: HTTPField.Name in [.authorization, .proxyAuthorization, .cookie] {
                next.head.headerFields[name] = nil
            }
        }
        return next
    }

    static func sameOrigin(_ lhs: URL?, _ rhs: URL?) -> Bool {
        guard let lhs, let rhs else { return false }
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && port(lhs) == port(rhs)
    }
}

/// The request a redirect proposes, by the rules browsers and URLSession follow: the `Location`
/// resolved against the request's URL; `303` (and `301`/`302` after a `POST`) continue as a `GET`
/// without a body; `307` and `308` keep the method and body. The request's `RedirectPolicy`
/// then decides whether to follow it.
enum RedirectProposal {
    /// The statuses that propose a redirect.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]
    /// As many redirects as one attempt follows (`RequestPipeline.StateMachine` counts them).
    static let maxRedirects = 16
    /// The failure of an attempt whose next redirect would pass `maxRedirects`.
    static let tooManyRedirects = NetworkError.transport(TransportError(.httpTooManyRedirects,
                                                                        detail: "more than \(maxRedirects) redirects"))

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
