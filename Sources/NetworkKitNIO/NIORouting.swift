#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOSSL

/// What a transport's connection settings decide for each request, beyond the client's own
/// configuration: the TLS configuration of a host with trust settings of its own.
struct NIORouting: Sendable {
    /// TLS configurations of hosts whose trust differs from the service's, by lowercased host.
    var tlsByHost: [String: TLSConfiguration] = [:]

    /// Routing that changes nothing.
    init() {}

    /// Applies `connection`'s trust to `configuration` and keeps what must be chosen per request.
    init(connection: ConnectionSettings, configuration: inout HTTPClient.Configuration) throws(NetworkError) {
        try NIOTransport.applyTrust(connection.trust, to: &configuration, routing: &self)
    }

    /// The TLS configuration for a request to `url` when its host has one of its own.
    func tlsConfiguration(for url: URL?) -> TLSConfiguration? {
        guard !tlsByHost.isEmpty, let host = url?.host?.lowercased() else { return nil }
        return tlsByHost[host]
    }
}
#endif
