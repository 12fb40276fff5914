import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// `TransferCookies`, a cookie jar at work on one request's transfers, without a network: which
/// `Cookie` header each transfer (the first send, each redirect) goes out with.
@Suite("Transfer cookies")
struct TransferCookiesTests {
    private let url = URL(string: "http://127.0.0.1:8080/a")!

    private func request(cookie: String? = nil) -> OutgoingRequest {
        var request = OutgoingRequest(head: HTTPRequest(url: url))
        request.head.headerFields[.cookie] = cookie
        return request
    }

    private func jar(_ fields: [String] = []) -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieFields: fields, from: url)
        return jar
    }

    @Test func anEmptyJarLeavesEachHopAsItIs() {
        var cookies = TransferCookies(store: jar())
        #expect(cookies.prepare(request(cookie: "own=1")).head.headerFields[.cookie] == "own=1")
        #expect(cookies.prepare(request()).head.headerFields[.cookie] == nil)
    }

    @Test func theJarsCookiesFollowTheRequestsOwn() {
        var cookies = TransferCookies(store: jar(["a=1; Path=/"]))
        #expect(cookies.prepare(request(cookie: "own=1")).head.headerFields[.cookie] == "own=1; a=1")
        var other = TransferCookies(store: jar(["a=1; Path=/"]))
        #expect(other.prepare(request()).head.headerFields[.cookie] == "a=1")
    }

    /// A redirect's answer stored a cookie in a jar that was empty when the first transfer went out.
    @Test func aCookieStoredBetweenHopsGoesWithTheNextHop() {
        let jar = jar()
        var cookies = TransferCookies(store: jar)
        let first = cookies.prepare(request(cookie: "own=1"))
        jar.store(setCookieFields: ["hop=1; Path=/"], from: url)
        #expect(cookies.prepare(first).head.headerFields[.cookie] == "own=1; hop=1")
    }

    /// The jar's cookies of an earlier transfer are not sent again once the jar no longer has them.
    @Test func aHopAfterTheJarEmptiedCarriesOnlyTheRequestsOwn() {
        let jar = jar(["a=1; Path=/"])
        var cookies = TransferCookies(store: jar)
        let first = cookies.prepare(request(cookie: "own=1"))
        #expect(first.head.headerFields[HTTPField.Name("Cookie")!] == "own=1; a=1")
        jar.removeAll()
        let second = cookies.prepare(first)
        #expect(second.head.headerFields[HTTPField.Name("Cookie")!] == "own=1")
        #expect(cookies.prepare(second).head.headerFields[.cookie] == "own=1")
    }

    /// A redirect policy that drops the `Cookie` header (another origin) drops the request's own
    /// cookies from every later transfer; the jar's still go where they match.
    @Test func aHopWhoseHeaderWasDroppedLosesTheRequestsOwn() {
        var cookies = TransferCookies(store: jar(["a=1; Path=/"]))
        var next = cookies.prepare(request(cookie: "own=1"))
        next.head.headerFields[HTTPField.Name("Cookie")!] = nil
        #expect(cookies.prepare(next).head.headerFields[.cookie] == "a=1")
    }
}
