import Foundation
@testable import NetworkKit
import Testing

/// The storage model (RFC 6265 §5.3) and the Cookie header (§5.4) of `CookieJar`.
@Suite("Cookie jar")
struct CookieJarTests {
    typealias Support = CookieTestSupport

    /// (Set-Cookie, set from, asked from, header expected there)
    @Test(arguments: [
        ("a=1", "http://example.com/", "http://example.com/", "a=1"),
        ("a=1", "http://example.com/", "http://www.example.com/", nil),  // host-only
        ("a=1", "http://Example.COM/", "http://example.com/", "a=1"),
        ("a=1; Domain=example.com", "http://www.example.com/", "http://example.com/", "a=1"),
        ("a=1; Domain=.example.com", "http://www.example.com/", "http://a.b.example.com/", "a=1"),
        ("a=1; Domain=example.com", "http://www.example.com/", "http://notexample.com/", nil),
        ("a=1; Domain=www.example.com", "http://example.com/", "http://www.example.com/", nil),  // refused
        ("a=1; Domain=other.com", "http://example.com/", "http://other.com/", nil),
        ("a=1; Domain=com", "http://example.com/", "http://other.com/", nil),  // a single label: refused
        ("a=1; Domain=localhost", "http://localhost/", "http://localhost/", "a=1"),  // the host: host-only
        ("a=1; Domain=localhost", "http://localhost/", "http://a.localhost/", nil),
        ("a=1", "http://127.0.0.1/", "http://127.0.0.1/", "a=1"),
        ("a=1; Domain=127.0.0.1", "http://127.0.0.1/", "http://127.0.0.1/", "a=1"),
        ("a=1; Domain=0.0.1", "http://127.0.0.1/", "http://127.0.0.1/", nil),  // never a suffix of an address
        ("a=1", "http://[::1]:8080/", "http://[::1]:9090/", "a=1"),  // ports are not looked at
        ("a=1; Domain=example.com:80", "http://example.com/", "http://example.com/", nil),
    ] as [(String, String, String, String?)])
    func domains(setCookie: String, from: String, to: String, expected: String?) throws {
        let jar = try Support.jar([setCookie], from: from)
        #expect(try Support.header(jar, to: to) == expected)
    }

    /// (Set-Cookie from http://h.test/a/b/c, path asked, sent)
    @Test(arguments: [
        ("a=1", "/a/b", true), ("a=1", "/a/b/", true), ("a=1", "/a/b/z", true), ("a=1", "/a/bc", false),
        ("a=1", "/a", false), ("a=1; Path=/", "/anything", true), ("a=1; Path=/a/", "/a/x", true),
        ("a=1; Path=/a/", "/a", false), ("a=1; Path=/A", "/a", false), ("a=1; Path=x", "/a/b/x", true),
        ("a=1; Path=/a%2Fb", "/a/b", false), ("a=1; Path=/a%2Fb", "/a%2Fb/c", true), ("a=1; Path=/a", "/a?q", true),
    ])
    func paths(setCookie: String, path: String, sent: Bool) throws {
        let jar = try Support.jar([setCookie], from: "http://h.test/a/b/c")
        #expect(try Support.header(jar, to: "http://h.test" + path) == (sent ? "a=1" : nil))
    }

    @Test(arguments: [("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("x/y", "/"), ("//", "/")])
    func defaultPath(requestPath: String, expected: String) {
        #expect(CookieMatching.defaultPath(of: requestPath) == expected)
    }

    @Test func secureCookiesNeedASecureSchemeBothWays() throws {
        let jar = try Support.jar(["s=1; Secure", "p=2"], from: "https://example.com/")
        #expect(try Support.header(jar, to: "https://example.com/") == "s=1; p=2")
        #expect(try Support.header(jar, to: "wss://example.com/") == "s=1; p=2")
        #expect(try Support.header(jar, to: "http://example.com/") == "p=2")
        // RFC 6265bis: http cannot set a secure cookie, nor replace or shadow one.
        jar.store(setCookieFields: ["t=3; Secure", "s=evil", "s=evil; Path=/deeper", "s=x; Max-Age=0"],
                  from: try Support.url("http://example.com/"), now: Support.now)
        #expect(try Support.header(jar, to: "https://example.com/deeper") == "s=1; p=2")
        jar.store(setCookieFields: ["s=new"], from: try Support.url("https://example.com/"), now: Support.now)
        #expect(try Support.header(jar, to: "https://example.com/") == "s=new; p=2")  // it keeps s=1's place
    }

    @Test func expiryDeletesAndSkips() throws {
        let later = Support.now.addingTimeInterval(120)
        let jar = try Support.jar(["a=1; Max-Age=60", "b=2", "c=3; Expires=Wed, 09 Jun 2021 10:18:14 GMT"], from: "http://h.test/")
        #expect(try Support.header(jar, to: "http://h.test/") == "a=1; b=2; c=3")
        #expect(try Support.header(jar, to: "http://h.test/", now: later) == "b=2; c=3")
        jar.store(setCookieFields: ["b=gone; Max-Age=0", "c=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT"],
                  from: try Support.url("http://h.test/"), now: later)
        #expect(try Support.header(jar, to: "http://h.test/", now: later) == nil)
        #expect(jar.count == 0)
        // An expired cookie with another path or domain deletes nothing.
        jar.store(setCookieFields: ["d=4", "d=x; Path=/other; Max-Age=0"], from: try Support.url("http://h.test/"), now: later)
        #expect(try Support.header(jar, to: "http://h.test/", now: later) == "d=4")
    }

    @Test func orderIsLongerPathThenEarlierCreationAndReplacementKeepsCreation() throws {
        let url = try Support.url("http://h.test/a/b")
        let jar = CookieJar()
        jar.store(setCookieFields: ["first=1; Path=/"], from: url, now: Support.now)
        jar.store(setCookieFields: ["deep=2; Path=/a/b", "mid=3; Path=/a", "second=4; Path=/"], from: url,
                  now: Support.now.addingTimeInterval(1))
        #expect(jar.cookieHeader(for: url, now: Support.now.addingTimeInterval(2)) == "deep=2; mid=3; first=1; second=4")
        jar.store(setCookieFields: ["first=new; Path=/"], from: url, now: Support.now.addingTimeInterval(3))
        #expect(jar.cookieHeader(for: url, now: Support.now.addingTimeInterval(4)) == "deep=2; mid=3; first=new; second=4")
        let replaced = try #require(jar.allCookies.first { $0.name == "first" })
        #expect(replaced.creation == Support.now && replaced.lastAccess == Support.now.addingTimeInterval(4))
        #expect(jar.allCookies.count == 4)
    }

    @Test func cookieHeaderTouchesLastAccessAndCookiesForDoesNot() throws {
        let jar = try Support.jar(["a=1"], from: "http://h.test/")
        let later = Support.now.addingTimeInterval(10)
        #expect(jar.cookies(for: try Support.url("http://h.test/"), now: later).map(\.lastAccess) == [Support.now])
        _ = try Support.header(jar, to: "http://h.test/", now: later)
        #expect(jar.allCookies.map(\.lastAccess) == [later])
    }

    @Test func removals() throws {
        let jar = try Support.jar(["s=1", "p=2; Max-Age=100", "q=3; Max-Age=1000"], from: "http://h.test/")
        jar.remove(expiredBefore: Support.now.addingTimeInterval(500))
        #expect(jar.allCookies.map(\.name) == ["s", "q"])
        jar.removeSessionCookies()
        #expect(jar.allCookies.map(\.name) == ["q"])
        jar.removeAll()
        #expect(jar.allCookies.isEmpty && jar.count == 0)
    }

    @Test func limitsEvictExpiredFirstThenLeastRecentlyAccessed() throws {
        let jar = CookieJar(maxCookiesPerDomain: 3, maxCookies: 5)
        let url = try Support.url("http://a.test/")
        jar.store(setCookieFields: ["old=1; Path=/o", "short=2; Max-Age=5", "used=3; Path=/u"], from: url, now: Support.now)
        _ = jar.cookieHeader(for: try Support.url("http://a.test/u"), now: Support.now.addingTimeInterval(1))
        jar.store(setCookieFields: ["new=4"], from: url, now: Support.now.addingTimeInterval(10))  // short expired
        #expect(Set(jar.allCookies.map(\.name)) == ["old", "used", "new"])
        jar.store(setCookieFields: ["newer=5"], from: url, now: Support.now.addingTimeInterval(11))
        #expect(Set(jar.allCookies.map(\.name)) == ["used", "new", "newer"])
        // Across domains: the total stays at 5, the least recently accessed go.
        for (index, host) in ["b.test", "c.test", "d.test"].enumerated() {
            jar.store(setCookieFields: ["x=\(index)"], from: try Support.url("http://\(host)/"),
                      now: Support.now.addingTimeInterval(20 + Double(index)))
        }
        #expect(jar.count == 5)
        #expect(jar.allCookies.filter { $0.domain == "a.test" }.count == 2)
    }

    @Test func defaultLimitsAre50PerDomainAnd3000InAll() throws {
        let jar = CookieJar()
        jar.store(setCookieFields: (0..<80).map { "n\($0)=v" }, from: try Support.url("http://one.test/"), now: Support.now)
        #expect(jar.count == 50)
        #expect(jar.allCookies.contains { $0.name == "n79" } && !jar.allCookies.contains { $0.name == "n29" })
        for index in 0..<100 {
            let fields = (0..<40).map { "c\($0)=v" }
            jar.store(setCookieFields: fields, from: try Support.url("http://h\(index).test/"), now: Support.now)
        }
        #expect(jar.count == 3000)
    }
}
