import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// The service's cookie jar on real servers, the same on both transports.
@Suite("Cookies through the service")
struct CookieServiceTests {
    private func cookieHeader(_ fixture: Fixture, _ path: String, configure: (AnyRequest) -> Void = { _ in }) async throws -> String {
        let request = Request(path: path, parser: JSONParser())
        configure(request)
        return try await fixture.service.send(request)["cookie"]?.stringValue ?? ""
    }

    @Test("a login cookie is kept and sent by every later request", arguments: TransportKind.allCases)
    func login(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let refused = await fixture.service.completion(of: Request(path: "/cookies/private", parser: JSONParser()))
        #expect(refused.failure?.description.contains("401") == true)
        _ = try await fixture.service.send(Request(path: "/cookies/login?user=ann&password=secret", parser: JSONParser()))
        let answer = try await fixture.service.send(Request(path: "/cookies/private", parser: JSONParser()))
        #expect(answer["user"] == "ann")
        let stored = try #require(fixture.service.configuration.cookies?.allCookies.first)
        #expect(stored.name == "session" && stored.httpOnly && stored.hostOnly)
    }

    @Test("cookies set by a redirect go with the redirected request", arguments: TransportKind.allCases)
    func redirect(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let path = CookiePaths.set(["hop=1; Path=/"], route: "/cookies/redirect", extra: [URLQueryItem(name: "to", value: "/cookies")])
        #expect(try await cookieHeader(fixture, path) == "hop=1")
    }

    @Test("paths scope cookies, and the longer path goes first", arguments: TransportKind.allCases)
    func paths(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await cookieHeader(fixture, CookiePaths.set(["deep=1; Path=/cookies/a", "top=2; Path=/"]))
        #expect(try await cookieHeader(fixture, "/cookies") == "top=2")
        #expect(try await cookieHeader(fixture, "/cookies/a/b") == "deep=1; top=2")
    }

    @Test("Max-Age=0 removes a cookie; an expired Expires never stores one", arguments: TransportKind.allCases)
    func expiry(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await cookieHeader(fixture, CookiePaths.set(["a=1; Path=/", "old=1; Path=/; Expires=Thu, 01 Jan 1970 00:00:01 GMT"]))
        #expect(try await cookieHeader(fixture, "/cookies") == "a=1")
        _ = try await cookieHeader(fixture, CookiePaths.set(["a=; Path=/; Max-Age=0"]))
        #expect(try await cookieHeader(fixture, "/cookies") == "")
    }

    @Test("host-only cookies stay with their host, across a redirect to another origin too", arguments: TransportKind.allCases)
    func hostOnly(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await cookieHeader(fixture, CookiePaths.set(["mine=1; Path=/"]))
        let other = "http://localhost:\(fixture.server.port)/cookies"
        let request = Request(.url(try #require(URL(string: other))), parser: JSONParser())
        #expect(try await fixture.service.send(request)["cookie"] == "")
        let hop = CookiePaths.set([], route: "/cookies/redirect", extra: [URLQueryItem(name: "to", value: other)])
        #expect(try await cookieHeader(fixture, hop) == "")
    }

    @Test("Secure cookies are not sent over http", arguments: TransportKind.allCases)
    func secure(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let jar = try #require(fixture.service.configuration.cookies)
        let https = try #require(URL(string: "https://127.0.0.1:\(fixture.server.port)/"))
        jar.store(setCookieFields: ["s=1; Secure; Path=/", "plain=2; Path=/"], from: https)
        #expect(try await cookieHeader(fixture, "/cookies") == "plain=2")
    }

    @Test("a request that opts out sends none and keeps none; its own Cookie header goes first", arguments: TransportKind.allCases)
    func optOut(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await cookieHeader(fixture, CookiePaths.set(["kept=1; Path=/"]))
        _ = try await cookieHeader(fixture, CookiePaths.set(["ignored=1; Path=/"])) { $0.usesCookies = false }
        #expect(try await cookieHeader(fixture, "/cookies") { $0.usesCookies = false } == "")
        #expect(try await cookieHeader(fixture, "/cookies") { $0.headerFields[.cookie] = "own=0" } == "own=0; kept=1")
        #expect(fixture.service.configuration.cookies?.allCookies.map(\.name) == ["kept"])
    }

    @Test("a service without a jar sends and keeps no cookies, and URLSession keeps none of its own", arguments: TransportKind.allCases)
    func noJar(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.cookies = nil }
        let before = HTTPCookieStorage.shared.cookies?.count ?? 0
        _ = try await cookieHeader(fixture, CookiePaths.set(["a=1; Path=/"]))
        #expect(try await cookieHeader(fixture, "/cookies") == "")
        #expect((HTTPCookieStorage.shared.cookies?.count ?? 0) == before)
    }
}
