import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// Arguments left out of cache keys, per service and per request.
@Suite("Cache-key rules")
struct CacheKeyRuleTests {
    @Test("a timestamp among the common parameters no longer makes every key new", arguments: TransportKind.allCases)
    func serviceWide(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        let clock = Protected(0)
        fixture.service.configure {
            $0.commonParameters = { ["ts": .int(Int64(clock.withLock { $0 += 1; return $0 }))] }
            $0.ignoredCacheKeyArguments = ["ts"]
        }
        #expect(try await fixture.send(fixture.request("ts-rule", "q=1")) == (1, .miss))
        #expect(try await fixture.send(fixture.request("ts-rule", "q=1")) == (1, .hit))
        // The other arguments still tell entries apart.
        #expect(try await fixture.send(fixture.request("ts-rule", "q=2")) == (2, .miss))
        #expect(fixture.server.hits.count("ts-rule") == 2)
    }

    @Test("a request's policy names its own", arguments: TransportKind.allCases)
    func perRequest(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        var policy = CachePolicy(lifetime: .seconds(60))
        policy.ignoredArguments = ["nonce"]
        #expect(try await fixture.send(fixture.request("nonce-rule", "nonce=a", policy: policy)) == (1, .miss))
        #expect(try await fixture.send(fixture.request("nonce-rule", "nonce=b", policy: policy)) == (1, .hit))
        #expect(try await fixture.send(fixture.request("nonce-rule", "nonce=c")) == (2, .miss))   // no rule
    }

    @Test("form and JSON bodies lose the ignored keys; other bodies and arguments stay")
    func keys() throws {
        let url = try #require(URL(string: "https://api.example/feed?page=2&ts=17&sig=x%20y"))
        #expect(CacheKey.url(url, ignoring: ["ts", "sig"]).absoluteString == "https://api.example/feed?page=2")
        #expect(CacheKey.url(url, ignoring: ["other"]) == url)
        let form = CacheKey.body(Data("a=1&ts=9&b=two+words".utf8), contentType: "application/x-www-form-urlencoded; charset=utf-8",
                                 ignoring: ["ts"])
        #expect(String(decoding: form, as: UTF8.self) == "a=1&b=two+words")
        let json = CacheKey.body(Data(#"{"b":1,"ts":2,"a":{"ts":3}}"#.utf8), contentType: "application/json", ignoring: ["ts"])
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":{"ts":3},"b":1}"#)
        let other = Data("ts=1".utf8)
        #expect(CacheKey.body(other, contentType: "text/plain", ignoring: ["ts"]) == other)
    }
}
