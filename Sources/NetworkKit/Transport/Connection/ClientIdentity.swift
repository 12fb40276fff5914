/// The certificate chain and private key a client presents when a server asks for one (mutual
/// TLS), both PEM. The key must not be encrypted.
public struct ClientIdentity: Sendable, Equatable {
    /// The client's certificate first, then any intermediates a server needs to reach its root.
    public var certificateChain: PEMSource
    /// The private key of the first certificate (PKCS#8, SEC1 or PKCS#1 PEM).
    public var privateKey: PEMSource

    /// An identity from a chain and its key.
    public init(certificateChain: PEMSource, privateKey: PEMSource) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}

/// A TLS protocol version, as the oldest a connection may use.
public enum TLSProtocolVersion: Sendable, Equatable, Comparable, CaseIterable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246).
    case v1_2
    /// TLS 1.3 (RFC 8446).
    case v1_3

    /// "TLS 1.2" or "TLS 1.3".
    public var description: String {
        switch self {
        case .v1_2: "TLS 1.2"
        case .v1_3: "TLS 1.3"
        }
    }
}
