#if NIO
import AsyncHTTPClient
import NetworkKit

extension NIOTransport {
    /// Sets the client's TLS configuration as `trust` says, and the per-host ones in `routing`
    /// (placeholder: filled in by the TLS work).
    static func applyTrust(_ trust: TrustSettings, to configuration: inout HTTPClient.Configuration,
                           routing: inout NIORouting) throws(NetworkError) {}
}
#endif
