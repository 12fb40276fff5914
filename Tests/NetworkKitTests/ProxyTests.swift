import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing

@Suite("Proxies")
struct ProxyTests {
    /// A fixture server, a forward proxy and a NIO service that sends through it.
    private func withProxy(user: String? = nil, password: String? = nil, sending credentials: ProxyCredentials? = nil,
                           bypass: String = "",
                           _ body: (Service, FixtureServer, ForwardProxy) async throws -> Void) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start(user: user, password: password)
        defer { proxy.stop() }
        let settings = ProxySettings.server(ProxyServer(host: "127.0.0.1", port: proxy.port, credentials: credentials),
                                            bypass: ProxyBypass(bypass))
        let transport = try NIOTransport(connection: ConnectionSettings(proxy: settings))
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15)), transport: transport)
        try await body(service, server, proxy)
    }

    @Test("an http: request goes to the proxy in absolute form, with its credentials")
    func absoluteForm() async throws {
        try await withProxy(user: "ann", password: "s3cret", sending: ProxyCredentials(user: "ann", password: "s3cret")) { service, server, proxy in
            let answer = try await service.send(Request(path: "/echo", parameters: ["q": "1"], parser: JSONParser()))
            #expect(answer["query"] == "q=1")
            #expect(answer["host"]?.stringValue == "127.0.0.1:\(server.port)")
            // One request: the fixture proxy closes each client connection after its answer,
            // which races a pooled connection's reuse.
            let entries = proxy.entries
            #expect(entries.map(\.method) == ["GET"])
            #expect(entries.map(\.target) == ["http://127.0.0.1:\(server.port)/echo?q=1"])
            #expect(entries.map(\.authorized) == [true])
        }
    }

    @Test("an https: request through the same proxy still tunnels")
    func httpsTunnels() async throws {
        try await withProxy { service, server, proxy in
            // The fixture speaks plain HTTP: the TLS handshake fails inside the tunnel, after CONNECT.
            _ = await service.completion(of: Request(.url(try #require(URL(string: "https://127.0.0.1:\(server.port)/echo"))),
                                                     parser: DataParser()))
            #expect(proxy.entries.map(\.method) == ["CONNECT"])
            #expect(proxy.entries.first?.target == "127.0.0.1:\(server.port)")
        }
    }

    @Test("a proxy that answers 407 to an http: request is a connection failure naming it")
    func authenticationRequiredAbsoluteForm() async throws {
        try await withProxy(user: "ann", password: "s3cret", sending: ProxyCredentials(user: "ann", password: "wrong")) { service, _, proxy in
            let result = await service.completion(of: Request(path: "/echo", parser: JSONParser()))
            guard case .connection(.proxyAuthenticationRequired(let name)) = result.failure else {
                Issue.record("expected a 407 failure, got \(String(describing: result.failure))")
                return
            }
            #expect(name == "http://127.0.0.1:\(proxy.port)")
            #expect(result.failure?.description.contains("requires authentication (407)") == true)
        }
    }

    @Test("a proxy that answers 407 to CONNECT is the same failure")
    func authenticationRequiredTunnel() async throws {
        try await withProxy(user: "ann", password: "s3cret") { service, server, proxy in
            let result = await service.completion(of: Request(.url(try #require(URL(string: "https://127.0.0.1:\(server.port)/echo"))),
                                                              parser: DataParser()))
            guard case .connection(.proxyAuthenticationRequired) = result.failure else {
                Issue.record("expected a 407 failure, got \(String(describing: result.failure))")
                return
            }
            #expect(proxy.entries.map(\.method) == ["CONNECT"])
        }
    }

    @Test("a proxy that refuses the tunnel is a connection failure")
    func refusedTunnel() async throws {
        try await withProxy { service, _, _ in
            // The fixture proxy reaches loopback targets only.
            let result = await service.completion(of: Request(.url(try #require(URL(string: "https://192.0.2.1:443/"))),
                                                              parser: DataParser()))
            guard case .connection(.proxyFailed(_, let reason)) = result.failure else {
                Issue.record("expected a refused tunnel, got \(String(describing: result.failure))")
                return
            }
            #expect(reason.contains("tunnel"))
        }
    }

    @Test("a bypassed host goes straight to the server")
    func bypass() async throws {
        try await withProxy(bypass: "localhost, 127.0.0.0/8") { service, _, proxy in
            let answer = try await service.send(Request(path: "/echo", parser: JSONParser()))
            #expect(answer["method"] == "GET")
            #expect(proxy.entries.isEmpty)
        }
    }

    @Test("a proxy that cannot be reached is a connection failure naming it")
    func unreachable() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let closed = try await ForwardProxy.start()
        let port = closed.port
        await closed.stopAndWait()
        let transport = try NIOTransport(connection: ConnectionSettings(proxy: .server(ProxyServer(host: "127.0.0.1", port: port))))
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15)), transport: transport)
        let result = await service.completion(of: Request(path: "/echo", parser: JSONParser()))
        guard case .connection(.proxyFailed(let name, _)) = result.failure else {
            Issue.record("expected an unreachable proxy, got \(String(describing: result.failure))")
            return
        }
        #expect(name == "http://127.0.0.1:\(port)")
    }

    @Test("URLSession refuses a proxy it cannot use, naming itself and the feature")
    func urlSessionRefusesExplicitProxy() throws {
        let settings = ConnectionSettings(proxy: .server(ProxyServer(host: "proxy.invalid", port: 3128)))
        #expect {
            _ = try URLSessionTransport(connection: settings)
        } throws: { error in
            guard case .connection(.unsupported(let feature, let transport)) = error as? NetworkError else { return false }
            return transport == "URLSessionTransport" && feature.contains("proxy")
        }
    }

    @Test("a request goes through a SOCKS5 proxy, which resolves the host")
    func throughSOCKS() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let socks = try await SOCKSProxy.start()
        defer { socks.stop() }
        let transport = try NIOTransport(connection: ConnectionSettings(proxy: .server(try ProxyServer(socks.address))))
        let service = Service(configuration: ServiceConfiguration(timeout: .seconds(15)), transport: transport)
        let url = try #require(URL(string: "http://localhost:\(server.port)/echo?q=1"))
        let answer = try await service.send(Request(.url(url), parser: JSONParser()))
        #expect(answer["query"] == "q=1")
        #expect(socks.targets == ["localhost:\(server.port)"])
    }

    @Test("NIO refuses credentials for a SOCKS proxy")
    func socksCredentials() throws {
        let server = try ProxyServer("socks5h://ann:pw@127.0.0.1:1080")
        #expect(throws: NetworkError.self) { _ = try NIOTransport(connection: ConnectionSettings(proxy: .server(server))) }
    }
}
