#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit

/// The clients of a transport with proxies: AsyncHTTPClient takes one proxy per client, so each
/// distinct proxy of the settings has a client of its own beside the direct one. All share the
/// event loop group and are shut down together.
struct NIOProxyClients: Sendable {
    /// The settings that pick a proxy per request.
    let settings: ProxySettings
    /// A client per distinct proxy.
    let clients: [ProxyServer: HTTPClient]

    /// No proxy: every request takes the direct client.
    init() {
        settings = .none
        clients = [:]
    }

    /// A client per proxy of `settings`, each made from `configuration` with that proxy set.
    init(settings: ProxySettings, configuration: HTTPClient.Configuration, makeClient: (HTTPClient.Configuration) -> HTTPClient) {
        self.settings = settings
        var clients: [ProxyServer: HTTPClient] = [:]
        for server in [settings.http, settings.https].compactMap({ $0 }) where clients[server] == nil {
            var proxied = configuration
            proxied.proxy = Self.clientProxy(server)
            clients[server] = makeClient(proxied)
        }
        self.clients = clients
    }

    /// The proxy a request to `url` goes through and its client, or nil to go direct.
    func route(for url: URL?) -> (server: ProxyServer, client: HTTPClient)? {
        guard !clients.isEmpty, let url, let server = settings.proxy(for: url), let client = clients[server] else {
            return nil
        }
        return (server, client)
    }

    /// AsyncHTTPClient's form of `server`.
    static func clientProxy(_ server: ProxyServer) -> HTTPClient.Configuration.Proxy {
        switch server.kind {
        case .http:
            let authorization = server.credentials.map {
                HTTPClient.Authorization.basic(username: $0.user, password: $0.password)
            }
            return .server(host: server.host, port: server.port, authorization: authorization)
        case .socks5:
            return .socksServer(host: server.host, port: server.port)
        }
    }

    /// Refuses what AsyncHTTPClient cannot do: credentials for a SOCKS proxy.
    static func check(_ settings: ProxySettings) throws(NetworkError) {
        for server in [settings.http, settings.https].compactMap({ $0 }) where server.kind == .socks5 && server.credentials != nil {
            throw .connection(.unsupported(feature: "credentials for a SOCKS proxy (\(server))", transport: "NIOTransport"))
        }
    }
}

extension NIOProxyClients {
    /// The error a proxied transfer ends with instead of `error` when the proxy caused it: a
    /// `407` to `CONNECT`, a refused tunnel, a proxy that cannot be reached.
    static func proxyError(for error: any Error, server: ProxyServer) -> NetworkError? {
        if let error = error as? HTTPClientError {
            if error == .proxyAuthenticationRequired {
                return .connection(.proxyAuthenticationRequired(proxy: server.description))
            }
            if error == .invalidProxyResponse {
                return .connection(.proxyFailed(proxy: server.description, reason: "it refused to open a tunnel"))
            }
        }
        if let url = NIOErrors.urlError(for: error) as? URLError,
           url.code == .cannotConnectToHost || url.code == .cannotFindHost {
            return .connection(.proxyFailed(proxy: server.description, reason: NetworkError.transport(url).description))
        }
        return nil
    }
}
#endif
