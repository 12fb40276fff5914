import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import Testing

/// WebSockets through the service's proxy: the fixture's HTTP `ForwardProxy` (a `CONNECT` tunnel
/// for `ws:` and for `wss:`, its credentials, what a proxy's refusal becomes) and its SOCKS5
/// `SOCKSProxy`.
@Suite("WebSockets through proxies")
struct WebSocketProxyTests {
    /// A service on NIO that sends through `proxy`, trusting as `trust` says.
    static func service(through proxy: ProxyServer, trust: TrustSettings) throws -> Service {
        let transport = try NIOTransport(connection: ConnectionSettings(proxy: .server(proxy), trust: trust))
        return Service(configuration: ServiceConfiguration(timeout: .seconds(60)),
                       transport: transport)
    }

    static func service(proxy: ForwardProxy, credentials: ProxyCredentials? = nil, trust: TrustSettings = TrustSettings()) throws -> Service {
        try service(through: ProxyServer(host: "127.0.0.1", port: proxy.port, credentials: credentials), trust: trust)
    }

    @Test func wsTunnelsThroughTheProxyWithItsCredentials() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start(user: "ann", password: "s3cret")
        defer { proxy.stop() }
        let service = try Self.service(proxy: proxy, credentials: ProxyCredentials(user: "ann", password: "s3cret"))
        let socket = try await service.send(.webSocket(url: server.url("/echo")))
        try await socket.send(.text("through the tunnel"))
        #expect(try await WebSocketTests.next(socket) == .text("through the tunnel"))
        await socket.close()
        #expect(proxy.entries.map(\.method) == ["CONNECT"])
        #expect(proxy.entries.map(\.target) == ["127.0.0.1:\(server.port)"])
        #expect(proxy.entries.map(\.authorized) == [true])

        let refused = try Self.service(proxy: proxy, credentials: ProxyCredentials(user: "ann", password: "wrong"))
        do {
            _ = try await refused.send(.webSocket(url: server.url("/echo")))
            Issue.record("a proxy that wants other credentials opened a tunnel")
        } catch {
            guard case .connection(.proxyAuthenticationRequired) = error else {
                Issue.record("expected the proxy's 407 as proxyAuthenticationRequired, got \(error)")
                return
            }
        }
    }

    @Test func wssTunnelsThenChecksTheServersCertificate() async throws {
        try await TrustFixture.run { fixture in
            let server = try await WebSocketServer.start(presenting: fixture.certificates.server)
            defer { server.stop() }
            let proxy = try await ForwardProxy.start()
            defer { proxy.stop() }
            let url = server.url("/echo", scheme: "wss")
            let socket = try await Self.service(proxy: proxy, trust: fixture.testCA).send(.webSocket(url: url))
            try await socket.send(.text("TLS in the tunnel"))
            #expect(try await WebSocketTests.next(socket) == .text("TLS in the tunnel"))
            await socket.close()
            #expect(proxy.entries.map(\.method) == ["CONNECT"])

            let untrusting = try Self.service(proxy: proxy)
            do {
                _ = try await untrusting.send(.webSocket(url: url))
                Issue.record("an untrusted server's certificate was taken through the tunnel")
            } catch let error as NetworkError {
                guard case .connection(.tls(_, .untrustedRoot)) = error else {
                    Issue.record("expected an untrusted root, got \(error)")
                    return
                }
            }
        }
    }

    @Test func aProxyThatCannotBeReachedIsNamed() async throws {
        let proxy = try await ForwardProxy.start()
        await proxy.stopAndWait()
        let service = try Self.service(proxy: proxy)
        do {
            _ = try await service.send(.webSocket(url: URL(string: "ws://127.0.0.1:9/echo")!))
            Issue.record("a WebSocket opened through a proxy that is not there")
        } catch {
            guard case .connection(.proxyFailed) = error else {
                Issue.record("expected proxyFailed, got \(error)")
                return
            }
        }
    }

    static func service(socks: SOCKSProxy, trust: TrustSettings = TrustSettings()) throws -> Service {
        try service(through: ProxyServer(socks.address), trust: trust)
    }

    @Test func wsAndWssTunnelThroughASOCKSProxy() async throws {
        let server = try await WebSocketServer.start()
        defer { server.stop() }
        let socks = try await SOCKSProxy.start()
        defer { socks.stop() }
        let socket = try await Self.service(socks: socks).send(.webSocket(url: server.url("/echo")))
        try await socket.send(.text("through SOCKS"))
        #expect(try await WebSocketTests.next(socket) == .text("through SOCKS"))
        await socket.close()
        #expect(socks.targets == ["127.0.0.1:\(server.port)"])

        try await TrustFixture.run { fixture in
            let secure = try await WebSocketServer.start(presenting: fixture.certificates.server)
            defer { secure.stop() }
            let socket = try await Self.service(socks: socks, trust: fixture.testCA).send(.webSocket(url: secure.url("/echo", scheme: "wss")))
            try await socket.send(.text("TLS through SOCKS"))
            #expect(try await WebSocketTests.next(socket) == .text("TLS through SOCKS"))
            await socket.close()
        }
    }

    @Test func aSOCKSProxyThatCannotReachTheServerIsNamed() async throws {
        let socks = try await SOCKSProxy.start()
        defer { socks.stop() }
        let closed = try await ForwardProxy.start()   // a port that was just free, and is again
        await closed.stopAndWait()
        let service = try Self.service(socks: socks)
        do {
            _ = try await service.send(.webSocket(url: URL(string: "ws://127.0.0.1:\(closed.port)/echo")!))
            Issue.record("a WebSocket opened to a server the proxy could not reach")
        } catch {
            guard case .connection(.proxyFailed(_, let reason)) = error else {
                Issue.record("expected proxyFailed, got \(error)")
                return
            }
            #expect(reason.contains("could not reach the server"))
        }
    }
}
