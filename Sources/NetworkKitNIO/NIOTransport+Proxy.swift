#if NIO
import AsyncHTTPClient
import NetworkKit

extension NIOTransport {
    /// Sets the client's proxy as `proxy` says (placeholder: filled in by the proxy work).
    static func applyProxy(_ proxy: ProxySettings, to configuration: inout HTTPClient.Configuration) throws(NetworkError) {
        switch proxy {
        case .none: configuration.proxy = nil
        }
    }
}
#endif
