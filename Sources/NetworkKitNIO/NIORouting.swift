#if NIO
import AsyncHTTPClient
import Foundation
import Logging
import NetworkKit
import NIOSSL

/// What a transport's connection settings decide for each request, beyond the client's own
/// configuration: the TLS configuration of a host with trust settings of its own, the warning
/// for a host whose certificate is not checked, and how a failure is reported.
struct NIORouting: Sendable {
    /// TLS configurations of hosts whose trust differs from the service's, by normalized host
    /// (`TrustSettings.normalized`).
    var tlsByHost: [String: TLSConfiguration] = [:]
    /// Hosts whose certificates are not checked, normalized; each request to one logs a warning.
    var insecureHosts: Set<String> = []
    /// Where the warnings go.
    var logger: Logger?

    /// Routing that changes nothing; `NIOTransport.applyTrust` fills it in from trust settings.
    init() {}

    /// The TLS configuration for a request to `url` when its host has one of its own. A request
    /// to an insecure host logs a warning.
    func tlsConfiguration(for url: URL?) -> TLSConfiguration? {
        guard !tlsByHost.isEmpty, let host = url?.host.map(TrustSettings.normalized) else { return nil }
        if insecureHosts.contains(host), url?.scheme?.lowercased() == "https" {
            logger?.warning(Self.insecureWarning(host), metadata: ["url": "\(url?.absoluteString ?? host)"])
        }
        return tlsByHost[host]
    }

    /// The warning logged for a host whose certificate is not checked, when the transport is
    /// made and on each request to it.
    static func insecureWarning(_ host: String) -> Logger.Message {
        "TLS certificate validation is OFF for \(host): any server can pose as it (TrustSettings.insecureHosts, for development only)"
    }

    /// The failure a request to `url` that failed with `error` completes with: the TLS check it
    /// failed, else the failure of `NIOErrors`. A failed
    /// chain check of a `direct` request (not through a proxy) is read again over a connection
    /// of its own to learn why.
    func failure(for error: any Error, url: URL?, direct: Bool) async -> NetworkError {
        guard var check = NIOTLSFailures.check(for: error) else { return NIOErrors.failure(for: error) }
        let host = url?.host ?? "the server"
        if direct, let url, let name = url.host {
            check = await NIOTLSFailures.refined(check, host: TrustSettings.normalized(name), port: url.port ?? 443)
        }
        return .connection(.tls(host: host, check: check))
    }
}
#endif
