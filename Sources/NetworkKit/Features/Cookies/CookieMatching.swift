import Foundation

/// What a cookie jar needs to know of a request URL: its canonical host, its path as sent on
/// the wire, and whether its scheme is a secure one.
struct CookieRequest: Sendable {
    /// The host in lower case, without the brackets of an IPv6 literal.
    let host: String
    /// Whether the host is an IPv4 or IPv6 address (such a host only ever matches itself).
    let hostIsAddress: Bool
    /// The percent-encoded path, not decoded (`/a%2Fb` stays so); `/` when the URL has none.
    let path: String
    /// Whether the scheme is `https` or `wss`.
    let isSecure: Bool

    /// The parts of `url`, or nil when it has no host.
    init?(_ url: URL) {
        let absolute = url.absoluteURL
        guard let components = URLComponents(url: absolute, resolvingAgainstBaseURL: true),
              var host = components.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host
        hostIsAddress = CookieMatching.isAddress(host)
        let path = components.percentEncodedPath
        self.path = path.isEmpty ? "/" : path
        let scheme = components.scheme?.lowercased()
        isSecure = scheme == "https" || scheme == "wss"
    }
}

/// The matching rules of RFC 6265 §5.1.3 (domains) and §5.1.4 (paths).
enum CookieMatching {
    /// Whether `host` domain-matches `domain` (both canonical, in lower case): they are equal,
    /// or `domain` is a suffix of `host` that starts right after a `.` of it and `host` is not
    /// an IP address.
    static func domain(_ host: String, matches domain: String, hostIsAddress: Bool) -> Bool {
        if host == domain { return true }
        guard !hostIsAddress, !domain.isEmpty else { return false }
        let hostBytes = host.utf8, domainBytes = domain.utf8
        guard hostBytes.count > domainBytes.count,
              hostBytes.reversed().starts(with: domainBytes.reversed()) else { return false }
        let dot = hostBytes.index(hostBytes.endIndex, offsetBy: -domainBytes.count - 1)
        return hostBytes[dot] == UInt8(ascii: ".")
    }

    /// Whether a request for `requestPath` path-matches `cookiePath`: they are equal, or
    /// `cookiePath` is a prefix of it that ends in `/` or is followed by a `/` in it. Paths are
    /// compared byte for byte, as sent (no percent-decoding, case-sensitive).
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.starts(with: cookie) else { return false }
        if request.count == cookie.count || cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// The default-path of a request path: `/` when it is empty, does not start with `/` or
    /// has only that one `/`; otherwise everything before its last `/`.
    static func defaultPath(of requestPath: String) -> String {
        let bytes = Array(requestPath.utf8)
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")), last > 0 else {
            return "/"
        }
        return String(decoding: bytes[..<last], as: UTF8.self)
    }

    /// The domains a cookie sent to `host` may carry: the host, then each suffix of it after
    /// a `.` (an IP address has only itself).
    static func candidateDomains(of host: String, hostIsAddress: Bool) -> [String] {
        guard !hostIsAddress else { return [host] }
        var domains = [host]
        var rest = Substring(host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }

    /// Whether `host` is an IP address: an IPv6 address (any host with a `:`, which no domain
    /// name has) or a host whose last label is all digits, which URL parsers read as IPv4
    /// (`127.0.0.1`, and also `999.1.1.1`, which is no domain name either).
    static func isAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        guard let last = host.split(separator: ".", omittingEmptySubsequences: true).last else { return false }
        return last.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether the domain is a single label (`com`, `localhost`): the jar has no public-suffix
    /// list, so this is the only kind of domain it refuses to let a cookie span.
    static func isSingleLabel(_ domain: String) -> Bool {
        !domain.contains(".")
    }
}
