import Foundation

/// One HTTP cookie as a ``CookieJar`` keeps it: the fields of the storage model of RFC 6265
/// §5.3. A cookie is identified by its name, domain and path; a later cookie with the same three
/// replaces it.
public struct Cookie: Sendable, Hashable {
    /// The name, as the server sent it (case-sensitive, never empty).
    public let name: String
    /// The value, as the server sent it: surrounding spaces and tabs trimmed, quotes kept.
    public let value: String
    /// The canonical domain: in lower case, with no leading `.`; for a host-only cookie, the
    /// host that set it.
    public let domain: String
    /// Whether the cookie goes only to `domain` itself (it came without a `Domain` attribute),
    /// rather than to `domain` and every host under it.
    public let hostOnly: Bool
    /// The path prefix of the requests it goes with; always starts with `/`.
    public let path: String
    /// Whether it goes only over a secure scheme (`https`, `wss`).
    public let secure: Bool
    /// Whether the server asked that scripts not see it. A jar used only for HTTP requests
    /// sends it like any other cookie; it is kept for files and other clients.
    public let httpOnly: Bool
    /// When it expires; nil for a session cookie, which lives as long as the jar holds it.
    public let expires: Date?
    /// When it was first stored; a cookie that replaces another keeps the other's creation.
    public internal(set) var creation: Date
    /// When it was last sent (or stored, if never sent since).
    public internal(set) var lastAccess: Date

    /// Whether it has expired at `date` (its expiry is at or before `date`); a session cookie
    /// never has.
    public func isExpired(at date: Date) -> Bool {
        expires.map { $0 <= date } ?? false
    }

    /// The cookie that a `Set-Cookie` field value `setCookie`, received in the answer to a
    /// request for `url`, asks to store; nil when it must be ignored.
    ///
    /// `setCookie` is read by RFC 6265 §5.2, within limits against hostile servers (a line over
    /// 8 KiB, a name and value over 4096 bytes, or a control character other than a tab make it
    /// ignored; an attribute value over 1024 bytes is skipped), then weighed against `url` by
    /// the storage model of §5.3:
    /// - a `Domain` that `url`'s host does not domain-match is refused; without a `Domain` the
    ///   cookie is host-only, for `url`'s host exactly;
    /// - there is no public-suffix list: the only `Domain` refused for being too broad is a
    ///   single label (`com`, `localhost`), and it is accepted as host-only when it is the host;
    /// - an IP-address host gets host-only cookies, and only a `Domain` equal to it;
    /// - a missing or invalid `Path` is the default path of `url` (§5.1.4);
    /// - a `Secure` cookie received over a scheme other than `https` or `wss` is refused, as
    ///   RFC 6265bis asks (RFC 6265 stores it).
    ///
    /// An already expired cookie (`Max-Age` zero or less, or an `Expires` at or before `now`)
    /// is returned: stored, it deletes the cookie it would replace.
    public static func parse(setCookie: String, from url: URL, now: Date = Date()) -> Cookie? {
        guard let request = CookieRequest(url), let parsed = SetCookieParser.parse(setCookie, now: now) else {
            return nil
        }
        return Cookie(parsed, request: request, now: now)
    }
}

extension Cookie {
    /// The cookie `parsed` makes for `request` by the storage model (§5.3 steps 4 to 9 and
    /// RFC 6265bis' refusal of a `Secure` cookie from an insecure scheme).
    init?(_ parsed: ParsedSetCookie, request: CookieRequest, now: Date) {
        guard !parsed.secure || request.isSecure else { return nil }
        var domain = parsed.domain ?? ""
        if !domain.isEmpty, request.hostIsAddress || CookieMatching.isSingleLabel(domain) {
            guard domain == request.host else { return nil }
            domain = ""  // the host itself: host-only
        }
        if !domain.isEmpty {
            guard CookieMatching.domain(request.host, matches: domain, hostIsAddress: request.hostIsAddress) else {
                return nil
            }
        }
        self.init(
            name: parsed.name, value: parsed.value, domain: domain.isEmpty ? request.host : domain,
            hostOnly: domain.isEmpty, path: parsed.path ?? CookieMatching.defaultPath(of: request.path),
            secure: parsed.secure, httpOnly: parsed.httpOnly, expires: parsed.expires, creation: now, lastAccess: now
        )
    }

    /// Whether a request to `request` gets this cookie (§5.4 step 1): the host is the domain
    /// (host-only) or domain-matches it, the path path-matches, and a secure cookie needs a
    /// secure scheme. Expiry is not looked at.
    func goes(to request: CookieRequest) -> Bool {
        let hostMatches = hostOnly
            ? request.host == domain
            : CookieMatching.domain(request.host, matches: domain, hostIsAddress: request.hostIsAddress)
        return hostMatches && CookieMatching.path(request.path, matches: path) && (!secure || request.isSecure)
    }
}
