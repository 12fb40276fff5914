import Foundation
@testable import NetworkKit
import Testing

/// Round trips through a real curl: what curl stores from a server's `Set-Cookie` lines and
/// writes with `-c` is what the jar stores from the same lines; what the jar writes, curl
/// reads with `-b` and sends as the jar would.
@Suite("Cookie files with curl", .serialized)
struct CookieCurlTests {
    typealias Support = CookieTestSupport

    /// The page the requests name; `--connect-to` sends them to the loopback server. Its
    /// default path is `/` for both: below the root they differ, curl 7.88 keeping the last `/`
    /// (`/docs/page` gives `/docs/`, where RFC 6265 §5.1.4 says `/docs`).
    static let page = "http://www.example.test/page"

    static let setCookies = [
        "plain=1", "wide=2; Domain=example.test; Path=/", "secret=3; HttpOnly; Max-Age=3600",
        "dated=4; Expires=Thu, 01 Jan 2099 00:00:00 GMT; Path=/docs/", "deep=5; Path=/docs", "quoted=\"a b\"",
        "gone=6; Max-Age=0", "refused=7; Domain=other.test",
    ]

    /// Throws (failing the test with that message) when curl cannot be run.
    static func requireCurl() async throws {
        guard await CookieCurl.version() != nil else { throw CookieCurl.Missing() }
    }

    /// A cookie's fields, with its expiry to the minute (curl and the jar count Max-Age from
    /// slightly different instants).
    static func summary(_ cookie: Cookie) -> String {
        let expiry = cookie.expires.map { String(Int($0.timeIntervalSince1970 / 60)) } ?? "session"
        return [cookie.name, cookie.value, cookie.domain, "\(cookie.hostOnly)", cookie.path, "\(cookie.secure)",
                "\(cookie.httpOnly)", expiry].joined(separator: "|")
    }

    @Test func curlsCookieJarFileReadsAsTheJarStoresTheSameLines() async throws {
        try await Self.requireCurl()
        let server = try CookieTestServer.start { _, _ in .init(setCookies: Self.setCookies) }
        defer { server.stop() }
        let file = CookieFileTests.temporaryFile("curl-c.txt")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await CookieCurl.run(["-s", "-g", "--connect-to", "::127.0.0.1:\(server.port)", "-c", file.path, Self.page])
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"), "curl's file: \(text)")
        #expect(text.contains("#HttpOnly_www.example.test\tFALSE\t/\tFALSE\t"), "curl's file: \(text)")
        let now = Date()
        let fromCurl = CookieJar()
        let report = try fromCurl.load(from: file, now: now)
        #expect(report.malformed == 0 && report.loaded == 6, "\(report)")
        let ours = CookieJar()
        ours.store(setCookieFields: Self.setCookies, from: try Support.url(Self.page), now: now)
        #expect(Set(fromCurl.allCookies.map(Self.summary)) == Set(ours.allCookies.map(Self.summary)))
    }

    @Test func curlSendsWhatTheJarWouldFromTheFileTheJarWrites() async throws {
        try await Self.requireCurl()
        let server = try CookieTestServer.start { _, cookie in .init(body: cookie ?? "") }
        defer { server.stop() }
        let jar = CookieJar()
        jar.store(setCookieFields: Self.setCookies + ["other=8; Path=/elsewhere", "sec=9; Secure"],
                  from: try Support.url(Self.page))
        jar.store(setCookieFields: ["sec=9; Secure"], from: try Support.url("https://www.example.test/"))
        let file = CookieFileTests.temporaryFile("jar-b.txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try jar.write(to: file)
        // Not /docs: curl drops the last `/` of a cookie's path when it reads it, so it sends
        // the `Path=/docs/` cookie there (RFC 6265 §5.1.4 does not).
        for url in [Self.page, "http://example.test/", "http://www.example.test/docs/sub/x",
                    "http://www.example.test/docsx", "http://www.example.test/elsewhere/y"] {
            let sent = try await CookieCurl.run(["-s", "-g", "--connect-to", "::127.0.0.1:\(server.port)", "-b", file.path, url])
            let expected = jar.cookieHeader(for: try Support.url(url)) ?? ""
            #expect(Set(sent.components(separatedBy: "; ")) == Set(expected.components(separatedBy: "; ")), "\(url)")
        }
    }
}
