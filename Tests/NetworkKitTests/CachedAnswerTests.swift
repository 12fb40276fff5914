import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// A service with a response cache and a service-wide envelope and validation, on one transport, and
/// how many times the origin answered each path.
private struct CachedAnswerSetup {
    let service: Service
    let date: TestDate
    let hits: @Sendable (String) -> Int
    let stop: @Sendable () -> Void

    /// Every answer is `{"code": 0, "hit": N, "version": "1"}` with an `ETag`; a conditional
    /// request with that tag is answered `304`: by the fixture server through the real
    /// transports, by a responder of the stub's.
    static func start(_ transport: ConformanceTransport) async throws -> CachedAnswerSetup {
        let date = TestDate()
        let cache = ResponseCache(memoryCapacity: 1 << 20, diskCapacity: 0)
        var configuration = ServiceConfiguration()
        configuration.responseCache = cache
        configuration.clock = date.clock
        configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "version")
        configuration.responseValidation = ResponseValidation(requiredKeyPaths: ["missing"])
        switch transport {
        case .urlSession, .nio:
            let server = try await FixtureServer.start()
            configuration.baseURL = server.baseURL
            return CachedAnswerSetup(service: Service(configuration: configuration, transport: transport.make()), date: date,
                                     hits: { server.hits.count($0) }, stop: { server.stop() })
        case .stub:
            let stub = StubTransport()
            let counts = Protected<[String: Int]>([:])
            stub.answer(.get, .pathPrefix("/cache/")) { request in
                let key = String(request.path.dropFirst("/cache/".count))
                let hit = counts.withLock { counts in
                    counts[key, default: 0] += 1
                    return counts[key, default: 0]
                }
                let etag = #""e-1""#
                if request.header(.ifNoneMatch) == etag { return StubResponse(status: 304, headerFields: [.eTag: etag]) }
                return .json(#"{"code": 0, "hit": \#(hit), "version": "1"}"#, headerFields: [.eTag: etag])
            }
            configuration.baseURL = URL(string: "https://api.example.com")
            return CachedAnswerSetup(service: Service(configuration: configuration, transport: stub), date: date,
                                     hits: { key in counts.withLock { $0[key, default: 0] } }, stop: {})
        }
    }

    /// A request for `/cache/KEY?etag=e`, cached for a minute, leaving out `skipping`.
    func request(_ key: String, skipping: ServiceDefaults) -> Request<JSON> {
        let request = Request(path: "/cache/\(key)?etag=e", parser: JSONParser())
        request.cache = CachePolicy(lifetime: .seconds(60))
        request.skippedServiceDefaults = skipping
        return request
    }
}

/// An answer from the cache, or refreshed by a `304`, goes through the same checks and parsers as
/// the network's: the request's own envelope and validation, its status codes, its progress.
@Suite("Cached answers take the network's road")
struct CachedAnswerTests {
    @Test("a request that leaves the envelope out reads the whole document, from the network, the cache and a 304",
          arguments: ConformanceTransport.allCases)
    func envelopeLeftOut(transport: ConformanceTransport) async throws {
        let setup = try await CachedAnswerSetup.start(transport)
        defer { setup.stop() }
        let skipping: ServiceDefaults = [.envelope, .responseValidation]
        let network = try await setup.service.reply(to: setup.request("whole", skipping: skipping))
        #expect(network.metrics.cache == .miss)
        #expect(network.value["hit"] == 1)
        let cached = try await setup.service.reply(to: setup.request("whole", skipping: skipping))
        #expect(cached.metrics.cache == .hit)
        #expect(cached.value["hit"] == 1, "a cache hit read \(cached.value)")
        setup.date.advance(seconds: 61)
        let revalidated = try await setup.service.reply(to: setup.request("whole", skipping: skipping))
        #expect(revalidated.metrics.cache == .revalidated)
        #expect(revalidated.value["hit"] == 1, "a 304 read \(revalidated.value)")
        #expect(setup.hits("whole") == 2)

        // The same entry read through the envelope, as the network's answer would be.
        let enveloped = try await setup.service.reply(to: setup.request("whole", skipping: .responseValidation))
        #expect(enveloped.metrics.cache == .hit)
        #expect(enveloped.value == "1")
        #expect(enveloped.businessStatus?.code == 0)
    }

    @Test("an entry stored without the service's validation is checked by a request that keeps it",
          arguments: ConformanceTransport.allCases)
    func validationKept(transport: ConformanceTransport) async throws {
        let setup = try await CachedAnswerSetup.start(transport)
        defer { setup.stop() }
        _ = try await setup.service.send(setup.request("checked", skipping: [.envelope, .responseValidation]))
        let checked = setup.request("checked", skipping: .envelope)
        let result = await setup.service.result(of: checked)
        guard case .failure(.parse(let error)) = result else { Issue.record("expected the validation's failure, got \(result)"); return }
        #expect(error.kind == .keyPath)
        // The entry this request refused was dropped, and the network asked instead.
        #expect(setup.hits("checked") == 2)
        #expect(checked.metrics?.cache == .miss)
    }

    @Test("a status the request does not accept fails a cached answer as it fails the network's",
          arguments: ConformanceTransport.allCases)
    func statusChecked(transport: ConformanceTransport) async throws {
        let setup = try await CachedAnswerSetup.start(transport)
        defer { setup.stop() }
        let skipping: ServiceDefaults = [.envelope, .responseValidation]
        _ = try await setup.service.send(setup.request("status", skipping: skipping))
        let strict = setup.request("status", skipping: skipping)
        strict.acceptableStatusCodes = 201..<202
        let result = await setup.service.result(of: strict)
        guard case .failure(.httpStatus(code: 200, _, _)) = result else { Issue.record("expected httpStatus 200, got \(result)"); return }
    }

    @Test("a cached answer reports its whole body to the progress handlers", arguments: ConformanceTransport.allCases)
    func progressOfACachedAnswer(transport: ConformanceTransport) async throws {
        let setup = try await CachedAnswerSetup.start(transport)
        defer { setup.stop() }
        let skipping: ServiceDefaults = [.envelope, .responseValidation]
        _ = try await setup.service.send(setup.request("progress", skipping: skipping))
        let cached = setup.request("progress", skipping: skipping)
        let last = Protected<TransferProgress?>(nil)
        await withCheckedContinuation { continuation in
            cached.addProgressHandler { _, progress in last.withLock { $0 = progress } }
            cached.addCompletionHandler { _, _ in continuation.resume() }
            setup.service.start(cached)
        }
        #expect(cached.metrics?.cache == .hit)
        #expect(last.snapshot?.fractionCompleted == 1)
    }
}
