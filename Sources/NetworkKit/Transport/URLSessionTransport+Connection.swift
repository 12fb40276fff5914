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
        try applyProxy(connection.proxy, to: copy)
        try applyTrust(connection.trust, to: copy)
        return copy
    }

    /// Sets the session's proxy (placeholder: filled in by the proxy work).
    static func applyProxy(_ proxy: ProxySettings, to configuration: URLSessionConfiguration) throws(NetworkError) {}
}
