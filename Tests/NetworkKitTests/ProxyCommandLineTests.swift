import Foundation
import FixtureServer
import Testing

/// curl's proxy flags and environment variables on `nk get`, on both transports; URLSession
/// (libcurl) is reached through the environment only.
@Suite("nk and proxies")
struct ProxyCommandLineTests {
    @Test("nk get --proxy sends through the proxy with its credentials (NIO)")
    func flag() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start(user: "ann", password: "pw")
        defer { proxy.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", "nio", "--proxy", "http://ann:pw@127.0.0.1:\(proxy.port)",
                                             server.baseURL.appendingPathComponent("echo").absoluteString])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("\"method\":\"GET\""))
        #expect(proxy.entries.map(\.authorized) == [true])
    }

    @Test("http_proxy from the environment: http: requests go in absolute form, on both transports",
          arguments: ["nio", "urlsession"])
    func environmentAbsoluteForm(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start(user: "ann", password: "pw")
        defer { proxy.stop() }
        let target = server.baseURL.appendingPathComponent("echo").absoluteString
        let run = try await CommandLine_.nk(["get", "--transport", transport, target],
                                            environment: ["http_proxy": "http://ann:pw@127.0.0.1:\(proxy.port)"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(proxy.entries.map(\.method) == ["GET"])
        #expect(proxy.entries.first?.target == target)
        #expect(proxy.entries.first?.authorized == true)
    }

    @Test("a 407 from the proxy is the kit's words and status 1, on both transports", arguments: ["nio", "urlsession"])
    func authenticationRequired(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start(user: "ann", password: "pw")
        defer { proxy.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, server.baseURL.appendingPathComponent("echo").absoluteString],
                                            environment: ["http_proxy": "http://ann:wrong@127.0.0.1:\(proxy.port)"])
        #expect(run.status == 1)
        #expect(run.errors.contains("requires authentication (407)"), "\(run.errors)")
    }

    @Test("a 407 to CONNECT is the kit's words and status 1, on both transports", arguments: ["nio", "urlsession"])
    func authenticationRequiredTunnel(transport: String) async throws {
        let proxy = try await ForwardProxy.start(user: "ann", password: "pw")
        defer { proxy.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, "https://127.0.0.1:9/"],
                                            environment: ["https_proxy": "http://ann:wrong@127.0.0.1:\(proxy.port)"])
        #expect(run.status == 1)
        #expect(run.errors.contains("requires authentication (407)"), "\(run.errors)")
        #expect(proxy.entries.map(\.method) == ["CONNECT"])
    }

    @Test("--noproxy and no_proxy send a host straight to the server", arguments: ["nio", "urlsession"])
    func bypass(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let proxy = try await ForwardProxy.start()
        defer { proxy.stop() }
        let run = try await CommandLine_.nk(["get", "--transport", transport, server.baseURL.appendingPathComponent("echo").absoluteString],
                                            environment: ["http_proxy": "127.0.0.1:\(proxy.port)", "no_proxy": "127.0.0.1"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(proxy.entries.isEmpty)
    }
}
