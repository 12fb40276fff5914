import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Checks that the session can honour `trust`. On Linux, FoundationNetworking (libcurl) has
    /// no server-trust or client-certificate challenges, takes other roots only from the
    /// process-wide `URLSessionCertificateAuthorityInfoFile` variable (not per service, and only
    /// on Android in current sources) and has no TLS version setting: only the system's trust
    /// is honoured, so every other setting, for the service or for a host, throws
    /// `NetworkError.connection(.unsupported(feature:transport:))` naming it.
    ///
    /// On Apple platforms URLSession could do these through its delegate's challenges and
    /// `tlsMinimumSupportedProtocolVersion`; that is not implemented (nor tested) here, so the
    /// settings are refused there too, but only the defaults are checked under
    /// FoundationNetworking's words.
    static func applyTrust(_ trust: TrustSettings, to configuration: URLSessionConfiguration) throws(NetworkError) {
        if let feature = unsupportedTrustFeature(trust) {
            throw .connection(.unsupported(feature: feature, transport: transportName))
        }
        for (host, entry) in trust.hosts.sorted(by: { $0.key < $1.key }) {
            if let feature = unsupportedTrustFeature(entry) {
                throw .connection(.unsupported(feature: "\(feature) for the host \(host)", transport: transportName))
            }
        }
    }

    /// The first setting of `trust` (host entries aside) that this transport cannot honour, in
    /// words; nil when it honours them all.
    private static func unsupportedTrustFeature(_ trust: TrustSettings) -> String? {
        #if canImport(FoundationNetworking)
        let platform = "(FoundationNetworking has no such setting)"
        #else
        let platform = "(not implemented for URLSession here)"
        #endif
        if trust.roots != .system {
            return "custom trust roots \(platform)"
        }
        if !trust.pinnedKeys.isEmpty {
            return "public key pinning \(platform)"
        }
        if trust.clientIdentity != nil {
            return "client certificates (mutual TLS) \(platform)"
        }
        if let version = trust.minimumTLSVersion {
            return "a minimum TLS version (\(version)) \(platform)"
        }
        if let host = trust.insecureHosts.sorted().first {
            return "turning certificate validation off (insecureHosts: \(host)) \(platform)"
        }
        return nil
    }
}
