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

/// The cookies of a ``CookieJar``, kept by domain, with the store's rules: replacement, deletion
/// by an expired cookie, RFC 6265bis' protection of secure cookies, the limits and the order
/// cookies are sent in. A value type with no lock: the jar guards it.
struct CookieStore {
    /// A stored cookie and its arrival number, which orders cookies created at the same instant.
    struct Entry {
        var cookie: Cookie
        let arrival: UInt64
    }

    /// At most this many cookies share a domain.
    let maxPerDomain: Int
    /// At most this many cookies in all.
    let maxTotal: Int
    /// Cookies by their `domain`; no bucket is empty.
    private var buckets: [String: [Entry]] = [:]
    /// How many cookies the buckets hold.
    private(set) var count = 0
    private var nextArrival: UInt64 = 0

    init(maxPerDomain: Int, maxTotal: Int) {
        self.maxPerDomain = max(1, maxPerDomain)
        self.maxTotal = max(1, maxTotal)
    }

    /// Stores `cookies` in order, as received at `now` in one answer over a secure scheme or
    /// not, then brings the store back within its limits (RFC 6265 §5.3 steps 11 and 12).
    ///
    /// A cookie replaces the one with its name, domain and path, keeping that one's creation
    /// time; an expired one only deletes it. Over an insecure scheme, a cookie that is not
    /// secure is ignored when a secure cookie of its name exists whose domain and its domain
    /// domain-match one way or the other and whose path its path path-matches (RFC 6265bis).
    mutating func store(_ cookies: [Cookie], overSecureScheme: Bool, now: Date) {
        let secure = overSecureScheme ? [] : buckets.values.joined().map(\.cookie).filter(\.secure)
        let secureByName = Dictionary(grouping: secure, by: \.name)
        for cookie in cookies {
            if !overSecureScheme, !cookie.secure, let guarded = secureByName[cookie.name],
               guarded.contains(where: { Self.shadows(cookie, secure: $0) }) { continue }
            store(cookie, now: now)
        }
        if count > maxTotal { evict(now: now) }
    }

    /// The cookies that go with `request` at `now`, in the order they are sent (longer paths
    /// first, then earlier creation, then earlier arrival); with `touch`, their last access
    /// becomes `now`. Expired cookies met on the way are dropped from the store.
    mutating func cookies(for request: CookieRequest, now: Date, touch: Bool) -> [Cookie] {
        var found: [Entry] = []
        for domain in CookieMatching.candidateDomains(of: request.host, hostIsAddress: request.hostIsAddress) {
            guard var bucket = buckets.removeValue(forKey: domain) else { continue }
            count -= bucket.count
            bucket.removeAll { $0.cookie.isExpired(at: now) }
            for index in bucket.indices where bucket[index].cookie.goes(to: request) {
                if touch { bucket[index].cookie.lastAccess = now }
                found.append(bucket[index])
            }
            put(bucket, for: domain)
        }
        return found.sorted(by: Self.sendingOrder).map(\.cookie)
    }

    /// Every cookie, by domain, then in sending order.
    var all: [Cookie] {
        buckets.keys.sorted().flatMap { buckets[$0, default: []].sorted(by: Self.sendingOrder).map(\.cookie) }
    }

    /// Removes the cookies for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        for domain in Array(buckets.keys) {
            guard var bucket = buckets.removeValue(forKey: domain) else { continue }
            count -= bucket.count
            bucket.removeAll { shouldRemove($0.cookie) }
            put(bucket, for: domain)
        }
    }

    /// Stores one cookie, then trims its domain to `maxPerDomain`.
    private mutating func store(_ cookie: Cookie, now: Date) {
        var cookie = cookie
        var bucket = buckets.removeValue(forKey: cookie.domain) ?? []
        count -= bucket.count
        var arrival = nextArrival
        if let old = bucket.firstIndex(where: { $0.cookie.name == cookie.name && $0.cookie.path == cookie.path }) {
            cookie.creation = bucket[old].cookie.creation
            arrival = bucket[old].arrival
            bucket.remove(at: old)
        } else {
            nextArrival += 1
        }
        if !cookie.isExpired(at: now) { bucket.append(Entry(cookie: cookie, arrival: arrival)) }
        if bucket.count > maxPerDomain { bucket.removeAll { $0.cookie.isExpired(at: now) } }
        while bucket.count > maxPerDomain, let victim = bucket.indices.min(by: { Self.evictionOrder(bucket[$0], bucket[$1]) }) {
            bucket.remove(at: victim)
        }
        put(bucket, for: cookie.domain)
    }

    /// Removes expired cookies, then the least recently accessed ones, until at most `maxTotal`
    /// remain (RFC 6265 §5.3: expired first, then by last access).
    private mutating func evict(now: Date) {
        removeAll { $0.isExpired(at: now) }
        guard count > maxTotal else { return }
        let victims = buckets.values.joined().sorted(by: Self.evictionOrder).prefix(count - maxTotal)
        let arrivals = Set(victims.map(\.arrival))
        for domain in Set(victims.map(\.cookie.domain)) {
            guard var bucket = buckets.removeValue(forKey: domain) else { continue }
            count -= bucket.count
            bucket.removeAll { arrivals.contains($0.arrival) }
            put(bucket, for: domain)
        }
    }

    /// Puts `bucket` back under `domain` (unless it is empty) and counts it.
    private mutating func put(_ bucket: [Entry], for domain: String) {
        guard !bucket.isEmpty else { return }
        buckets[domain] = bucket
        count += bucket.count
    }

    /// Whether a new insecure `cookie` would shadow the `secure` one (RFC 6265bis §5.7).
    private static func shadows(_ cookie: Cookie, secure: Cookie) -> Bool {
        let domainsMatch =
            CookieMatching.domain(cookie.domain, matches: secure.domain, hostIsAddress: CookieMatching.isAddress(cookie.domain))
            || CookieMatching.domain(secure.domain, matches: cookie.domain, hostIsAddress: CookieMatching.isAddress(secure.domain))
        return domainsMatch && CookieMatching.path(cookie.path, matches: secure.path)
    }

    private static func sendingOrder(_ first: Entry, _ second: Entry) -> Bool {
        let firstLength = first.cookie.path.utf8.count, secondLength = second.cookie.path.utf8.count
        if firstLength != secondLength { return firstLength > secondLength }
        if first.cookie.creation != second.cookie.creation { return first.cookie.creation < second.cookie.creation }
        return first.arrival < second.arrival
    }

    private static func evictionOrder(_ first: Entry, _ second: Entry) -> Bool {
        if first.cookie.lastAccess != second.cookie.lastAccess { return first.cookie.lastAccess < second.cookie.lastAccess }
        return first.arrival < second.arrival
    }
}
