/// The version of HTTP a response came over, as its transport reports it
/// (``ResponseHead/httpVersion``).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version: 1, 2 or 3.
    public var major: Int
    /// The minor version: 0 or 1 for HTTP/1, 0 after.
    public var minor: Int

    /// A version from its numbers.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPVersion(major: 3, minor: 0)

    /// As a status line writes it: `HTTP/1.1`, `HTTP/2`.
    public var description: String {
        major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)"
    }
}

/// Which versions of HTTP a service's transport may speak (``ConnectionSettings/httpVersions``).
public enum HTTPVersionPreference: Sendable, Hashable {
    /// HTTP/2 where the server offers it over TLS (ALPN), else HTTP/1.1: the default.
    case http2WhenOffered
    /// HTTP/1.1 only, even where the server offers HTTP/2.
    case http1Only
}
