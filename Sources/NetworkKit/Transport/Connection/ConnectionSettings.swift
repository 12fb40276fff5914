/// How a service's transport reaches servers: through which proxy, and which servers it trusts.
/// A transport takes them when it is made (`NIOTransport(connection:)`,
/// `URLSessionTransport(configuration:connection:)`) and throws
/// `NetworkError.connection(.unsupported(feature:transport:))` at once for a setting it cannot
/// honour, or `.invalidSetting(setting:reason:)` for one it cannot use: nothing is silently ignored.
public struct ConnectionSettings: Sendable {
    /// The proxy requests go through; none by default.
    public var proxy: ProxySettings
    /// Which servers are trusted, and how this client proves who it is; the system's roots by
    /// default.
    public var trust: TrustSettings
    /// Which versions of HTTP the transport may speak: HTTP/2 where the server offers it, by
    /// default, or HTTP/1.1 only.
    public var httpVersions: HTTPVersionPreference

    /// Settings with no proxy, the system's trust and HTTP/2 where offered, unless given.
    public init(proxy: ProxySettings = .none, trust: TrustSettings = TrustSettings(),
                httpVersions: HTTPVersionPreference = .http2WhenOffered) {
        self.proxy = proxy
        self.trust = trust
        self.httpVersions = httpVersions
    }
}
