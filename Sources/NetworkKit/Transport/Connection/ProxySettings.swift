import Foundation

/// The proxies a transport sends requests through: one for `http:` URLs, one for `https:` URLs,
/// and the hosts that bypass them. Requests to `https:` URLs go through a `CONNECT` tunnel, so the
/// proxy never sees their contents. Requests to `http:` URLs go to an HTTP proxy in absolute form
/// (`GET http://host/path`), as curl sends them, on both transports; through a SOCKS proxy they
/// tunnel too.
///
///     let proxy = ProxySettings.server(try ProxyServer("http://user:secret@proxy.corp:3128"),
///                                      bypass: "localhost,.internal.corp")
///     let proxyFromEnvironment = try ProxySettings.environment()
public struct ProxySettings: Sendable, Equatable {
    /// The proxy for `http:` URLs; nil sends them straight to the server.
    public var http: ProxyServer?
    /// The proxy for `https:` URLs; nil sends them straight to the server.
    public var https: ProxyServer?
    /// Hosts reached without a proxy.
    public var bypass: ProxyBypass

    /// Proxies for each scheme, and the hosts that bypass them.
    public init(http: ProxyServer?, https: ProxyServer?, bypass: ProxyBypass = ProxyBypass()) {
        self.http = http
        self.https = https
        self.bypass = bypass
    }

    /// No proxy: every request goes straight to its server.
    public static let none = ProxySettings(http: nil, https: nil)

    /// One proxy for both schemes, bypassed for the hosts in `bypass` (curl's `--noproxy` list).
    public static func server(_ server: ProxyServer, bypass: ProxyBypass = ProxyBypass()) -> ProxySettings {
        ProxySettings(http: server, https: server, bypass: bypass)
    }

    /// True when no request goes through a proxy.
    public var isNone: Bool { http == nil && https == nil }

    /// The proxy a request to `url` goes through, or nil when it goes straight to the server
    /// (no proxy for its scheme, or its host is bypassed).
    package func proxy(for url: URL) -> ProxyServer? {
        let server: ProxyServer?
        switch url.scheme?.lowercased() {
        case "http": server = http
        case "https": server = https
        default: server = nil
        }
        guard let server, let host = url.host, !bypass.matches(host: host) else { return nil }
        return server
    }
}
