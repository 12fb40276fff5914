import Foundation

/// The certificate authorities a server's chain must lead to.
public enum TrustRoots: Sendable, Equatable {
    /// The system's roots (on Linux, the distribution's CA bundle).
    case system
    /// Only these certificates: the system's roots are not trusted.
    case custom([PEMSource])
    /// The system's roots and these certificates.
    case systemAnd([PEMSource])
}

/// PEM text given in memory or as a file: certificates (`-----BEGIN CERTIFICATE-----`) or a
/// private key. A transport reads and parses it when it is made and throws an error that names
/// the file when it does not parse.
public enum PEMSource: Sendable, Equatable, CustomStringConvertible {
    /// PEM text in memory.
    case data(Data)
    /// A PEM file, read when the transport is made.
    case file(URL)

    /// "the PEM file PATH" or "PEM data (N bytes)", for errors.
    public var description: String {
        switch self {
        case .data(let data): "PEM data (\(data.count) bytes)"
        case .file(let url): "the PEM file \(url.path)"
        }
    }

    /// The PEM text's bytes: the data, or the file's contents.
    package func bytes() throws(TrustSettingsError) -> Data {
        switch self {
        case .data(let data):
            return data
        case .file(let url):
            do {
                return try Data(contentsOf: url)
            } catch {
                throw .unreadablePEM(source: description, reason: "cannot read it: \(error.localizedDescription)")
            }
        }
    }
}
