#if NIO
import Foundation
import NetworkKit
import NIOSSL

/// `TrustSettings` as NIOSSL takes them: PEM read and parsed, and TLS configurations checked by
/// making a context from them, when the transport is made. What cannot be used throws
/// `NetworkError.connection(.invalidSetting(setting:reason:))` naming the file.
enum NIOTrustMaterial {
    /// The name errors give the transport.
    static let transportName = "NIOTransport"

    /// The client TLS configuration `trust` asks for (its host entries aside); `insecure` turns
    /// certificate checks off.
    static func tlsConfiguration(_ trust: TrustSettings, insecure: Bool) throws(NetworkError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch trust.roots {
        case .system:
            break
        case .custom(let sources):
            tls.trustRoots = .certificates(try certificates(sources, for: "custom trust roots"))
        case .systemAnd(let sources):
            tls.additionalTrustRoots = [.certificates(try certificates(sources, for: "additional trust roots"))]
        }
        if let identity = trust.clientIdentity {
            tls.certificateChain = try certificates([identity.certificateChain], for: "a client certificate chain")
                .map { .certificate($0) }
            tls.privateKey = .privateKey(try privateKey(identity.privateKey))
        }
        switch trust.minimumTLSVersion {
        case nil: break
        case .v1_2: tls.minimumTLSVersion = .tlsv12
        case .v1_3: tls.minimumTLSVersion = .tlsv13
        }
        if insecure { tls.certificateVerification = .none }
        do {
            // Checks now what the first connection would find: a key that is not the
            // certificate's, roots BoringSSL refuses.
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw unusable("these TLS settings", reason: "NIOSSL refuses them: \(error)")
        }
        return tls
    }

    /// The certificates of `sources`, each of which must hold at least one.
    private static func certificates(_ sources: [PEMSource], for use: String) throws(NetworkError) -> [NIOSSLCertificate] {
        var certificates: [NIOSSLCertificate] = []
        for source in sources {
            let bytes = try bytes(of: source, for: use)
            do {
                certificates += try NIOSSLCertificate.fromPEMBytes(Array(bytes))
            } catch {
                throw unusable("\(use) from \(source)", reason: "it holds no PEM certificate that parses (\(error))")
            }
        }
        return certificates
    }

    /// The private key of `source`.
    private static func privateKey(_ source: PEMSource) throws(NetworkError) -> NIOSSLPrivateKey {
        let bytes = try bytes(of: source, for: "a client private key")
        do {
            return try NIOSSLPrivateKey(bytes: Array(bytes), format: .pem)
        } catch {
            throw unusable("a client private key from \(source)",
                           reason: "it holds no unencrypted PEM private key that parses (\(error))")
        }
    }

    private static func bytes(of source: PEMSource, for use: String) throws(NetworkError) -> Data {
        do {
            return try source.bytes()
        } catch {
            guard case .unreadablePEM(_, let reason) = error else { throw unusable("\(use) from \(source)", reason: "\(error)") }
            throw unusable("\(use) from \(source)", reason: reason)
        }
    }

    /// The error for a setting that cannot be used.
    static func unusable(_ setting: String, reason: String) -> NetworkError {
        .connection(.invalidSetting(setting: setting, reason: reason))
    }
}
#endif
