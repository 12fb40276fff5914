import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// `CookieStep`, the jar at work on one request's hops, without a network: which `Cookie` header
/// each hop goes out with.
@Suite("Cookie step")
struct CookieStepTests {
    private let url = URL(string: "http://127.0.0.1:8080/a")!

    private func request(cookie: String? = nil) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        return request
    }

    private func jar(_ fields: [String] = []) -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieFields: fields, from: url)
        return jar
    }

    @Test func anEmptyJarLeavesEachHopAsItIs() {
        var step = CookieStep(jar: jar())
        #expect(step.prepare(request(cookie: "own=1")).value(forHTTPHeaderField: "Cookie") == "own=1")
        #expect(step.prepare(request()).value(forHTTPHeaderField: "Cookie") == nil)
    }

    @Test func theJarsCookiesFollowTheRequestsOwn() {
        var step = CookieStep(jar: jar(["a=1; Path=/"]))
        #expect(step.prepare(request(cookie: "own=1")).value(forHTTPHeaderField: "Cookie") == "own=1; a=1")
        var other = CookieStep(jar: jar(["a=1; Path=/"]))
        #expect(other.prepare(request()).value(forHTTPHeaderField: "Cookie") == "a=1")
    }

    /// A redirect's answer stored a cookie in a jar that was empty when the first hop went out.
    @Test func aCookieStoredBetweenHopsGoesWithTheNextHop() {
        let jar = jar()
        var step = CookieStep(jar: jar)
        let first = step.prepare(request(cookie: "own=1"))
        jar.store(setCookieFields: ["hop=1; Path=/"], from: url)
        #expect(step.prepare(first).value(forHTTPHeaderField: "Cookie") == "own=1; hop=1")
    }

    /// The jar's cookies of an earlier hop are not sent again once the jar no longer has them.
    @Test func aHopAfterTheJarEmptiedCarriesOnlyTheRequestsOwn() {
        let jar = jar(["a=1; Path=/"])
        var step = CookieStep(jar: jar)
        let first = step.prepare(request(cookie: "own=1"))
        #expect(first.value(forHTTPHeaderField: "Cookie") == "own=1; a=1")
        jar.removeAll()
        let second = step.prepare(first)
        #expect(second.value(forHTTPHeaderField: "Cookie") == "own=1")
        #expect(step.prepare(second).value(forHTTPHeaderField: "Cookie") == "own=1")
    }

    /// A redirect policy that drops the `Cookie` header (another origin) drops the request's own
    /// cookies from every later hop; the jar's still go where they match.
    @Test func aHopWhoseHeaderWasDroppedLosesTheRequestsOwn() {
        var step = CookieStep(jar: jar(["a=1; Path=/"]))
        var next = step.prepare(request(cookie: "own=1"))
        next.setValue(nil, forHTTPHeaderField: "Cookie")
        #expect(step.prepare(next).value(forHTTPHeaderField: "Cookie") == "a=1")
    }
}
