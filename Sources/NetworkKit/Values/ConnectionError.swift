/// Why a connection could not be made the way the service's connection settings ask: the
/// proxy refused it, the server's TLS identity failed a check, a setting cannot be used, or the
/// transport cannot do a feature at all.
public enum ConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The proxy answered `407 Proxy Authentication Required`: it needs credentials, or refused
    /// the ones sent.
    case proxyAuthenticationRequired(proxy: String)
    /// The proxy refused to open a tunnel or forward the request (another answer than 2xx to
    /// `CONNECT`), or could not be reached.
    case proxyFailed(proxy: String, reason: String)
    /// The server's certificate chain, name, dates or key failed a check; `host` is the server's.
    case tls(host: String, check: TLSCheck)
    /// The transport cannot do `feature`; the service was not built.
    case unsupported(feature: String, transport: String)
    /// `setting` cannot be used as given (a PEM file that is missing or does not parse, a key
    /// that is not its certificate's); `reason` says why. The service was not built.
    case invalidSetting(setting: String, reason: String)

    /// One line fit for a log.
    public var description: String {
        switch self {
        case .proxyAuthenticationRequired(let proxy):
            return "the proxy \(proxy) requires authentication (407)"
        case .proxyFailed(let proxy, let reason):
            return "the proxy \(proxy) failed: \(reason)"
        case .tls(let host, let check):
            return "TLS with \(host) failed: \(check)"
        case .unsupported(let feature, let transport):
            return "\(transport) cannot do \(feature)"
        case .invalidSetting(let setting, let reason):
            return "the connection setting \(setting) cannot be used: \(reason)"
        }
    }
}

/// The TLS check a server failed.
public enum TLSCheck: Sendable, Equatable, CustomStringConvertible {
    /// The chain does not lead to a trusted root (self-signed, unknown or missing authority).
    case untrustedRoot
    /// The certificate does not name the host that was asked for.
    case nameMismatch
    /// The certificate (or one in its chain) has expired.
    case expired
    /// The certificate (or one in its chain) is not valid yet.
    case notYetValid
    /// None of the pinned public keys matches the server's; `presented` is the SHA-256 of the
    /// server's SubjectPublicKeyInfo, base64, as curl's `--pinnedpubkey` writes it.
    case pinMismatch(presented: String)
    /// The server asked for a client certificate and none was sent, or it refused the one sent.
    case clientCertificateRejected
    /// The handshake failed otherwise (protocol version, cipher, a dropped connection); the
    /// TLS library's words.
    case handshake(String)

    /// The check in words.
    public var description: String {
        switch self {
        case .untrustedRoot: return "untrusted root: the certificate chain does not lead to a trusted authority"
        case .nameMismatch: return "name mismatch: the certificate does not name this host"
        case .expired: return "expired: the certificate is past its end date"
        case .notYetValid: return "not yet valid: the certificate's start date is in the future"
        case .pinMismatch(let presented): return "pin mismatch: the server's public key sha256//\(presented) is not pinned"
        case .clientCertificateRejected: return "client certificate required or rejected by the server"
        case .handshake(let words): return "handshake failed: \(words)"
        }
    }
}
