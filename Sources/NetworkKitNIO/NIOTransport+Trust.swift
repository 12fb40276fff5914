#if NIO
import AsyncHTTPClient
import NetworkKit
import NIOSSL

extension NIOTransport {
    /// Sets the client's TLS configuration as `trust` says, and the per-host ones in `routing`:
    /// every host with an entry in `trust.hosts` or named in `trust.insecureHosts` gets a TLS
    /// configuration of its own, picked per request. Pins are checked on each new connection
    /// (`NIOPinCheck`, whose doc states which pins apply to a connection). Warns through
    /// `trust.logger` once per insecure host. Throws when a PEM does not parse or NIOSSL refuses
    /// a configuration; on Apple platforms, where AsyncHTTPClient runs on Network.framework's
    /// TLS and the pins cannot be read, pinning is refused (not implemented or tested there).
    static func applyTrust(_ trust: TrustSettings, to configuration: inout HTTPClient.Configuration,
                           routing: inout NIORouting) throws(NetworkError) {
        routing.logger = trust.logger
        if !trust.isSystemDefault {
            configuration.tlsConfiguration = try NIOTrustMaterial.tlsConfiguration(trust, insecure: false)
        }
        let ownHosts = Set(trust.hosts.keys.map(TrustSettings.normalized))
            .union(trust.insecureHosts.map(TrustSettings.normalized))
        for host in ownHosts.sorted() {
            let insecure = trust.isInsecure(host: host)
            routing.tlsByHost[host] = try NIOTrustMaterial.tlsConfiguration(trust.settings(forHost: host), insecure: insecure)
            if insecure {
                routing.insecureHosts.insert(host)
                trust.logger.warning(NIORouting.insecureWarning(host))
            }
        }
        let pins = NIOPinCheck(trust)
        guard pins.pinsAnything else { return }
        #if canImport(Network)
        throw NetworkError.connection(.unsupported(feature: "public key pinning on Network.framework's TLS",
                                                   transport: NIOTrustMaterial.transportName))
        #else
        configuration.http1_1ConnectionDebugInitializer = pins.check
        configuration.http2ConnectionDebugInitializer = pins.check
        #endif
    }
}
#endif
