import Logging

/// Which servers a transport trusts, and how it proves who it is: the roots a server's chain must
/// lead to, the public keys it must present, this client's certificate, the oldest TLS version
/// allowed, the hosts whose certificates are not checked at all, and hosts with settings of their
/// own.
///
///     var trust = TrustSettings(roots: .systemAnd([.file(caURL)]))
///     trust.pinnedKeys = try PublicKeyPin.pins(curlSyntax: "sha256//AbC…=;sha256//XyZ…=")
///     trust.hosts["files.example.com"] = TrustSettings(roots: .custom([.file(filesCA)]))
///     let transport = try NIOTransport(connection: ConnectionSettings(trust: trust))
///
/// A transport takes the settings when it is made and throws
/// `NetworkError.connection(.unsupported(feature:transport:))` at once for one it cannot honour
/// (URLSession on Linux honours only the defaults), and
/// `NetworkError.connection(.invalidSetting(setting:reason:))` for one it cannot use (a PEM that
/// does not parse).
/// Every transport, with connection settings or without, reports a server that fails a check as
/// `NetworkError.connection(.tls(host:check:))`, the ``TLSCheck`` naming the check.
public struct TrustSettings: Sendable {
    /// The certificate authorities a server's chain must lead to; the system's by default.
    public var roots: TrustRoots
    /// The public keys a server may present (the SHA-256 of its SubjectPublicKeyInfo): when the
    /// list is not empty, a server whose key matches none of them fails with
    /// `TLSCheck.pinMismatch(presented:)`, even when its chain is trusted. One match is enough.
    /// The check is made on each new connection, before any request is sent on it.
    ///
    /// On `NIOTransport` a connection's check is not told which host the connection is for, so
    /// the pins that apply come from the names in the certificate the server presented (which
    /// the handshake checked): the pins of each host entry the certificate names, and these
    /// pins when it also names a host without an entry (a wildcard does). A certificate that
    /// names several hosts must satisfy the pins of each.
    public var pinnedKeys: [PublicKeyPin]
    /// The certificate chain and key this client presents to servers that ask for one (mutual
    /// TLS); none by default.
    public var clientIdentity: ClientIdentity?
    /// The oldest TLS version a connection may use; nil leaves the transport's own floor.
    public var minimumTLSVersion: TLSProtocolVersion?
    /// Hosts (names or IP addresses as URLs spell them, any case) whose certificates are not
    /// checked at all: any chain, name and date is accepted. For development against a server
    /// with a throwaway certificate only; the transport logs a warning through ``logger`` when it
    /// is made and on every request to such a host. Pins that apply to a connection (see
    /// ``pinnedKeys``) are still checked.
    public var insecureHosts: Set<String>
    /// Settings of their own for some hosts (keys as URLs spell the host, any case): a host's
    /// entry replaces these settings for that host, whole (roots, pins, client identity, minimum
    /// version and whether the host is insecure, which its entry's ``insecureHosts`` says).
    /// The entries' own `hosts` and `logger` are not used.
    public var hosts: [String: TrustSettings]
    /// Where a transport says, at `warning`, that it does not check a host's certificate. Only
    /// the service's settings' logger is used, not a host entry's.
    public var logger: Logger

    /// Settings that trust the system's roots and nothing more, unless given.
    public init(roots: TrustRoots = .system, pinnedKeys: [PublicKeyPin] = [], clientIdentity: ClientIdentity? = nil,
                minimumTLSVersion: TLSProtocolVersion? = nil, insecureHosts: Set<String> = [],
                hosts: [String: TrustSettings] = [:], logger: Logger = Logger(label: "NetworkKit.Trust")) {
        self.roots = roots
        self.pinnedKeys = pinnedKeys
        self.clientIdentity = clientIdentity
        self.minimumTLSVersion = minimumTLSVersion
        self.insecureHosts = insecureHosts
        self.hosts = hosts
        self.logger = logger
    }

    /// True when nothing differs from the system's trust: system roots, no pins, no client
    /// identity, no minimum version, no insecure host (host entries are not looked at).
    package var isSystemDefault: Bool {
        roots == .system && pinnedKeys.isEmpty && clientIdentity == nil && minimumTLSVersion == nil
            && insecureHosts.isEmpty
    }

    /// The settings that apply to `host`: its entry in ``hosts`` when it has one, else these
    /// settings; either way without host entries. Hosts are compared without regard to case and
    /// to the brackets of an IPv6 literal.
    package func settings(forHost host: String) -> TrustSettings {
        let key = Self.normalized(host)
        var chosen = hosts.first { Self.normalized($0.key) == key }?.value ?? self
        chosen.hosts = [:]
        return chosen
    }

    /// True when the settings that apply to `host` turn its certificate checks off.
    package func isInsecure(host: String) -> Bool {
        let key = Self.normalized(host)
        return settings(forHost: host).insecureHosts.contains { Self.normalized($0) == key }
    }

    /// `host` as settings compare it: lowercased, without an IPv6 literal's brackets.
    package static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}
