import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The name errors give this transport.
    static let transportName = "URLSessionTransport"

    /// A copy of `configuration` set up as `connection` says, or an error naming the first
    /// setting URLSession cannot honour here.
    static func sessionConfiguration(_ configuration: URLSessionConfiguration,
                                     connection: ConnectionSettings) throws(NetworkError) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        if connection.httpVersions == .http1Only {
            throw .connection(.unsupported(feature: "HTTP/1.1 only (URLSession negotiates HTTP/2 over TLS and has no setting to turn it off)",
                                           transport: transportName))
        }
        try applyProxy(connection.proxy, to: copy)
        try applyTrust(connection.trust, to: copy)
        return copy
    }

    /// The proxies a session of this transport sends through: on Linux those the environment
    /// names (libcurl reads them itself); none elsewhere, where the kit sets none.
    static var proxyInEffect: ProxySettings {
        #if canImport(FoundationNetworking)
        (try? ProxySettings.environment()) ?? .none
        #else
        .none
        #endif
    }

    /// Checks that the session will use `proxy`. On Linux, libcurl under URLSession takes its
    /// proxies from the environment by curl's own rules and from nowhere else, so the one setting
    /// it can honour is what ``ProxySettings/environment(_:)`` reads (`.none` when no proxy
    /// variable is set). Elsewhere only `.none` is accepted.
    static func applyProxy(_ proxy: ProxySettings, to configuration: URLSessionConfiguration) throws(NetworkError) {
        #if canImport(FoundationNetworking)
        guard proxy != proxyInEffect else { return }
        let feature = proxy.isNone
            ? "requests without the proxy that the environment names (libcurl reads http_proxy, https_proxy, all_proxy and no_proxy itself)"
            : "a proxy other than the one the environment names (FoundationNetworking takes proxies from http_proxy, https_proxy, all_proxy and no_proxy only)"
        throw .connection(.unsupported(feature: feature, transport: transportName))
        #else
        guard proxy.isNone else {
            throw .connection(.unsupported(feature: "proxy settings (use URLSessionConfiguration.connectionProxyDictionary)",
                                           transport: transportName))
        }
        #endif
    }
}
