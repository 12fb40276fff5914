import Foundation

/// One proxy: where it is, which protocol it speaks, and the credentials it asks for.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The protocol a proxy speaks.
    public enum Kind: String, Sendable, Hashable {
        /// An HTTP proxy: absolute-form requests for `http:` URLs, `CONNECT` tunnels for `https:`.
        case http
        /// A SOCKS5 proxy that resolves host names itself (curl's `socks5h://`; `socks5://` is
        /// taken the same way).
        case socks5
    }

    /// The protocol it speaks.
    public var kind: Kind
    /// Its host name or address.
    public var host: String
    /// Its port.
    public var port: Int
    /// The user and password sent with Basic authentication (`Proxy-Authorization`), if any.
    public var credentials: ProxyCredentials?

    /// A proxy at `host` and `port`.
    public init(kind: Kind = .http, host: String, port: Int, credentials: ProxyCredentials? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// A proxy written as curl's `--proxy` takes it: `[scheme://][user:password@]host[:port]`.
    /// The scheme is `http` when missing (also `socks5` or `socks5h`); the port 1080 when missing,
    /// as curl's. User and password are percent-decoded. Throws
    /// `NetworkError.invalidRequest` for another scheme or a missing host.
    public init(_ text: String) throws(NetworkError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else {
            throw .invalidRequest("the proxy \(Self.redacted(text)) is not [scheme://][user:password@]host[:port]")
        }
        let scheme = components.scheme?.lowercased() ?? "http"
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        default:
            throw .invalidRequest("the proxy scheme \(scheme):// is not supported (http://, socks5://, socks5h://)")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 1080
        if let user = components.percentEncodedUser {
            credentials = ProxyCredentials(user: user.removingPercentEncoding ?? user,
                                           password: components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 } ?? "")
        }
    }

    /// `scheme://host:port`, without credentials.
    public var description: String {
        "\(kind.rawValue)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The text of a proxy for an error message, with any password left out.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        return text[..<start] + "***" + text[at...]
    }
}

/// The user and password a proxy asks for. Their `description` never shows the password.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Credentials from a user name and a password.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The user name only.
    public var description: String { "\(user):***" }
}
