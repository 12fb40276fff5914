#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit

/// How a request reaches its server through a proxy.
struct NIOProxyRoute: Sendable {
    /// The proxy.
    let server: ProxyServer
    /// The client that sends through it.
    let client: HTTPClient
    /// True for an `http:` request to an HTTP proxy: it is sent to the proxy itself, its target in
    /// absolute form. False for a tunnel (`CONNECT`, or SOCKS).
    let absoluteForm: Bool
}

/// The clients of a transport with proxies. AsyncHTTPClient takes one proxy per client and
/// tunnels every request through it, so each distinct proxy of the settings has a client of its
/// own beside the direct one, and an HTTP proxy for `http:` URLs has one more that sends requests
/// to it in absolute form (`AbsoluteFormTargets`), as curl and libcurl do. All share the event
/// loop group and are shut down together.
struct NIOProxyClients: Sendable {
    /// The settings that pick a proxy per request.
    let settings: ProxySettings
    /// A tunnelling client per distinct proxy.
    let tunnels: [ProxyServer: HTTPClient]
    /// An absolute-form client per HTTP proxy of `http:` URLs.
    let absoluteForm: [ProxyServer: HTTPClient]

    /// Every client, for shutting them down.
    var clients: [HTTPClient] { Array(tunnels.values) + Array(absoluteForm.values) }

    /// No proxy: every request takes the direct client.
    init() {
        settings = .none
        tunnels = [:]
        absoluteForm = [:]
    }

    /// The clients of `settings`' proxies, each made from `configuration`.
    init(settings: ProxySettings, configuration: HTTPClient.Configuration, makeClient: (HTTPClient.Configuration) -> HTTPClient) {
        self.settings = settings
        var tunnels: [ProxyServer: HTTPClient] = [:]
        var absoluteForm: [ProxyServer: HTTPClient] = [:]
        if let server = settings.http, server.kind == .http {
            absoluteForm[server] = makeClient(AbsoluteFormTargets.configuration(from: configuration))
        }
        // `https:` URLs always tunnel; `http:` URLs only through a SOCKS proxy.
        let tunnelled = [settings.http.flatMap { $0.kind == .http ? nil : $0 }, settings.https].compactMap { $0 }
        for server in tunnelled where tunnels[server] == nil {
            var proxied = configuration
            proxied.proxy = Self.clientProxy(server)
            tunnels[server] = makeClient(proxied)
        }
        self.tunnels = tunnels
        self.absoluteForm = absoluteForm
    }

    /// How a request to `url` goes through a proxy, or nil to go direct.
    func route(for url: URL?) -> NIOProxyRoute? {
        guard !settings.isNone, let url, let server = settings.proxy(for: url) else { return nil }
        if url.scheme?.lowercased() == "http", let client = absoluteForm[server] {
            return NIOProxyRoute(server: server, client: client, absoluteForm: true)
        }
        guard let client = tunnels[server] else { return nil }
        return NIOProxyRoute(server: server, client: client, absoluteForm: false)
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
    /// The failure a proxied transfer ends with instead of `error` when the proxy caused it: a
    /// `407` to `CONNECT`, a refused tunnel, a proxy that cannot be reached.
    static func proxyFailure(for error: any Error, server: ProxyServer) -> ConnectionError? {
        if let error = error as? HTTPClientError {
            if error == .proxyAuthenticationRequired {
                return .proxyAuthenticationRequired(proxy: server.description)
            }
            if error == .invalidProxyResponse {
                return .proxyFailed(proxy: server.description, reason: "it refused to open a tunnel")
            }
        }
        if case .transport(let failure) = NIOErrors.failure(for: error),
           failure.code == .cannotConnectToHost || failure.code == .cannotFindHost {
            return .proxyFailed(proxy: server.description, reason: NetworkError.transport(failure).description)
        }
        return nil
    }
}
#endif
