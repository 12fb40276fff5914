import Foundation

/// The hosts that go straight to their server, written as curl's `--noproxy` and `no_proxy` take
/// them: names, IP addresses and CIDR ranges separated by commas or spaces, or `*` alone for
/// every host.
///
/// - A name matches that host and every host under it: `example.com` and `.example.com` both
///   match `example.com` and `api.example.com`, not `badexample.com`. Case does not matter; a
///   trailing dot is dropped.
/// - An IP address matches that address only; `10.0.0.0/8` or `fd00::/8` match a range. Names
///   are not resolved: `localhost` does not match `127.0.0.1`.
/// - Ports are not part of an entry.
public struct ProxyBypass: Sendable, Hashable, CustomStringConvertible {
    /// The entries as given.
    public private(set) var entries: [String]
    private var everyHost: Bool

    /// The list in `text`; an empty text bypasses nothing.
    public init(_ text: String = "") {
        entries = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        everyHost = text.trimmingCharacters(in: .whitespaces) == "*"
    }

    /// True when a request to `host` goes straight to the server.
    package func matches(host: String) -> Bool {
        if everyHost { return true }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        let address = IPAddressBytes(name)
        return entries.contains { entry in
            if let address { return Self.entry(entry, matchesAddress: address, text: name) }
            return Self.entry(entry, matchesName: name)
        }
    }

    /// The entries joined by commas.
    public var description: String { everyHost ? "*" : entries.joined(separator: ",") }

    private static func entry(_ entry: String, matchesName name: String) -> Bool {
        var token = Substring(entry.lowercased())
        if token.hasPrefix(".") { token = token.dropFirst() }
        if token.hasSuffix(".") { token = token.dropLast() }
        guard !token.isEmpty, token.count <= name.count else { return false }
        guard name.hasSuffix(token) else { return false }
        if token.count == name.count { return true }
        return name.dropLast(token.count).last == "."
    }

    private static func entry(_ entry: String, matchesAddress address: IPAddressBytes, text: String) -> Bool {
        let parts = entry.split(separator: "/", maxSplits: 1)
        var base = String(parts[0])
        if base.hasPrefix("["), base.hasSuffix("]") { base = String(base.dropFirst().dropLast()) }
        guard let network = IPAddressBytes(base), network.bytes.count == address.bytes.count else { return false }
        let bits = parts.count == 2 ? Int(parts[1]) : network.bytes.count * 8
        guard let bits, bits >= 0, bits <= network.bytes.count * 8 else { return false }
        return address.hasPrefix(of: network, bits: bits)
    }
}

/// The bytes of an IPv4 or IPv6 address written as text.
struct IPAddressBytes {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// True when the first `bits` bits equal those of `network`.
    func hasPrefix(of network: IPAddressBytes, bits: Int) -> Bool {
        for index in 0..<bytes.count {
            let remaining = bits - index * 8
            if remaining <= 0 { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if bytes[index] & mask != network.bytes[index] & mask { return false }
        }
        return true
    }
}
