import Foundation

/// The cookies of one service, kept by the rules of RFC 6265: what `Set-Cookie` fields store
/// (``store(setCookieFields:from:now:)``) and what `Cookie` header a request sends
/// (``cookieHeader(for:now:)``).
///
/// Safe to use from any thread: every method runs under one lock. Cookies live in memory; a
/// jar can be written to and read from a Netscape cookie file, the format of curl's `-c` and
/// `-b` (``write(to:now:)``, ``load(from:now:)``).
///
/// Limits, for servers that send too many: at most `maxCookiesPerDomain` cookies share a
/// domain and at most `maxCookies` are kept in all; past either, expired cookies go first, then
/// the least recently accessed (sent, or stored if never sent). The jar keeps no public-suffix
/// list: it refuses a `Domain` that is a single label (`com`), but not one like `co.uk`.
public final class CookieJar: Sendable {
    private let state: Protected<CookieStore>

    /// An empty jar. The limits are at least 1 (the defaults are those RFC 6265 §6.1 asks a
    /// user agent to support at the least).
    public init(maxCookiesPerDomain: Int = 50, maxCookies: Int = 3000) {
        state = Protected(CookieStore(maxPerDomain: maxCookiesPerDomain, maxTotal: maxCookies))
    }

    /// Stores what the `Set-Cookie` field values `setCookieFields` of the answer to a request
    /// for `url` ask, in their order, at `now`. Each is read and weighed against `url` as
    /// ``Cookie/parse(setCookie:from:now:)`` says; one that is ignored changes nothing. A cookie
    /// replaces the stored one with the same name, domain and path (keeping its creation
    /// time), and an expired one deletes it. Over `http`, a cookie that is not secure cannot
    /// replace or shadow a secure one of the same name (RFC 6265bis §5.7).
    public func store(setCookieFields: [String], from url: URL, now: Date = Date()) {
        guard let request = CookieRequest(url) else { return }
        let cookies = setCookieFields.compactMap { field in
            SetCookieParser.parse(field, now: now).flatMap { Cookie($0, request: request, now: now) }
        }
        guard !cookies.isEmpty else { return }
        state.withLock { $0.store(cookies, overSecureScheme: request.isSecure, now: now) }
    }

    /// The value of the `Cookie` header for a request to `url` at `now`, or nil when no cookie
    /// goes with it (RFC 6265 §5.4): the unexpired cookies whose domain the host domain-matches
    /// (is, for a host-only cookie) and whose path the URL's path path-matches, secure ones only
    /// over `https` or `wss`; as `name=value` pairs joined by `"; "`, longer paths first, then
    /// older cookies first. Their last access becomes `now`.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        guard let request = CookieRequest(url) else { return nil }
        let cookies = state.withLock { $0.cookies(for: request, now: now, touch: true) }
        guard !cookies.isEmpty else { return nil }
        return cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The cookies a request to `url` at `now` would send, in the order it would send them;
    /// unlike ``cookieHeader(for:now:)``, asking does not change their last access.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let request = CookieRequest(url) else { return [] }
        return state.withLock { $0.cookies(for: request, now: now, touch: false) }
    }

    /// Every cookie held, by domain and then in sending order. Expired cookies are dropped
    /// when a request meets them, when more room is needed or by ``remove(expiredBefore:)``;
    /// until then they are listed here.
    public var allCookies: [Cookie] {
        state.withLock { $0.all }
    }

    /// How many cookies the jar holds.
    public var count: Int {
        state.withLock { $0.count }
    }

    /// True when the jar holds no cookie: a request then has none to send, and its URL is not read.
    public var isEmpty: Bool {
        state.withLock { $0.count == 0 }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0.removeAll { _ in true } }
    }

    /// Removes the cookies that have expired at `date` (their expiry is at or before it);
    /// session cookies stay.
    public func remove(expiredBefore date: Date) {
        state.withLock { $0.removeAll { $0.isExpired(at: date) } }
    }

    /// Removes the session cookies (those without an expiry), as a browser does when it
    /// closes and curl's `--junk-session-cookies` does when it reads a file.
    public func removeSessionCookies() {
        state.withLock { $0.removeAll { $0.expires == nil } }
    }

    /// Stores `cookies` as they are, in order (the jar's file reader).
    func insert(_ cookies: [Cookie], now: Date) {
        state.withLock { $0.store(cookies, overSecureScheme: true, now: now) }
    }
}

/// The jar is the pipeline's cookie store: each transfer sends and keeps cookies at the time it
/// runs.
extension CookieJar: CookieStoring {
    func cookieHeader(for url: URL) -> String? {
        cookieHeader(for: url, now: Date())
    }

    func store(setCookieFields: [String], from url: URL) {
        store(setCookieFields: setCookieFields, from: url, now: Date())
    }
}
