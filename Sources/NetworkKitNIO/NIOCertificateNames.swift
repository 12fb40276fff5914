#if NIO
import Foundation
import NetworkKit
import NIOSSL

/// The names a certificate is valid for, from its subjectAltName extension: DNS names (with
/// wildcards) and IP addresses, matched against hosts as TLS hostname checks match them.
struct NIOCertificateNames: Sendable {
    /// DNS names, lowercased, without a trailing dot.
    let dnsNames: [String]
    /// IP addresses, 4 or 16 bytes.
    let ipAddresses: [[UInt8]]

    /// The names of `certificate`.
    init(_ certificate: NIOSSLCertificate) {
        var dnsNames: [String] = [], ipAddresses: [[UInt8]] = []
        for name in certificate._subjectAlternativeNames() {
            switch name.nameType {
            case .dnsName: dnsNames.append(Self.normalizedName(String(decoding: Array(name.contents), as: UTF8.self)))
            case .ipAddress: ipAddresses.append(Array(name.contents))
            default: break
            }
        }
        self.init(dnsNames: dnsNames, ipAddresses: ipAddresses)
    }

    /// Names as given.
    init(dnsNames: [String], ipAddresses: [[UInt8]]) {
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
    }

    /// True when the certificate names nothing readable.
    var isEmpty: Bool { dnsNames.isEmpty && ipAddresses.isEmpty }

    /// True when the certificate is valid for `host` (a normalized host: a name or an IP literal).
    func covers(_ host: String) -> Bool {
        if let address = Self.ipBytes(host) { return ipAddresses.contains(address) }
        let host = Self.normalizedName(host)
        return dnsNames.contains { Self.name($0, matches: host) }
    }

    /// True when the certificate is valid for some host outside `hosts` (normalized): one of its
    /// names is not among them, or is a wildcard.
    func coversAnyName(besides hosts: Set<String>) -> Bool {
        let names = Set(hosts.map(Self.normalizedName))
        let addresses = Set(hosts.compactMap(Self.ipBytes))
        return dnsNames.contains { $0.contains("*") || !names.contains($0) }
            || ipAddresses.contains { !addresses.contains($0) }
    }

    /// `pattern` (a certificate's DNS name) matches `host`: equal, or a `*.` wildcard standing
    /// for exactly one leftmost label.
    static func name(_ pattern: String, matches host: String) -> Bool {
        guard pattern.hasPrefix("*.") else { return pattern == host }
        guard let dot = host.firstIndex(of: "."), dot != host.startIndex else { return false }
        return host[dot...] == pattern.dropFirst()
    }

    /// A DNS name lowercased, without a trailing dot.
    static func normalizedName(_ name: String) -> String {
        let name = name.lowercased()
        return name.hasSuffix(".") ? String(name.dropLast()) : name
    }

    /// The bytes of `host` when it is an IPv4 or IPv6 literal (brackets allowed).
    static func ipBytes(_ host: String) -> [UInt8]? {
        let literal = TrustSettings.normalized(host)
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
#endif
