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
/// 3xx answer is the response then.
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
