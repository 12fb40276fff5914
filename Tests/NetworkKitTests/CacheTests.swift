import Foundation
import Logging
import Testing
import FixtureServer
@testable import NetworkKit

/// The services' clock, which the tests move by hand, for freshness.
final class TestDate: Sendable {
    let clock = InstantClock()
    func advance(seconds: Int64) { clock.advance(by: .seconds(seconds)) }
}

/// A fixture server and a service with its own response cache.
struct CacheFixture {
    let server: FixtureServer
    let service: Service
    let cache: ResponseCache
    let date: TestDate

    static func start(memory: Int64 = 1 << 20, disk: Int64 = 1 << 20, directory: URL? = nil,
                      logger: Logger = Logger(label: "test.cache"),
                      transport: TransportKind = .urlSession) async throws -> CacheFixture {
        let server = try await FixtureServer.start()
        let date = TestDate()
        let cache = ResponseCache(memoryCapacity: memory, diskCapacity: disk, directory: directory, logger: logger)
        return CacheFixture(server: server, service: service(for: server, cache: cache, clock: date.clock, transport: transport),
                            cache: cache, date: date)
    }

    static func service(for server: FixtureServer, cache: ResponseCache, clock: InstantClock,
                        transport: TransportKind = .urlSession) -> Service {
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.responseCache = cache
        configuration.clock = clock
        return transport.service(configuration)
    }

    /// A JSON request for `/cache/KEY?QUERY` with `policy`, reading the body's `hit`.
    func request(_ key: String, _ query: String = "", policy: CachePolicy? = CachePolicy(lifetime: .seconds(60))) -> Request<JSON> {
        let request = Request(path: "/cache/\(key)?\(query)", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code")))
        request.cache = policy
        return request
    }

    /// Sends `request`; returns the `hit` the body carried and what the cache did.
    func send(_ request: Request<JSON>) async throws -> (hit: Int?, cache: CacheOutcome?) {
        let reply = try await service.reply(to: request)
        return (reply.value["hit"]?.intValue.map { Int($0) }, reply.metrics.cache)
    }
}

@Suite("Response cache")
struct CacheTests {
    @Test("a fresh entry answers without any traffic, and says it came from the cache", arguments: TransportKind.allCases)
    func freshEntryAnswers(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        #expect(try await fixture.send(fixture.request("fresh")) == (1, .miss))
        fixture.date.advance(seconds: 59)
        #expect(try await fixture.send(fixture.request("fresh")) == (1, .hit))
        #expect(fixture.server.hits.count("fresh") == 1)
        let uncached = try await fixture.send(fixture.request("fresh", policy: nil))
        #expect(uncached == (2, .notUsed))
    }

    @Test("a stale entry is revalidated: one conditional request answered 304 refreshes it", arguments: TransportKind.allCases)
    func staleEntryRevalidates(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        #expect(try await fixture.send(fixture.request("stale", "etag=abc")) == (1, .miss))
        fixture.date.advance(seconds: 61)
        #expect(try await fixture.send(fixture.request("stale", "etag=abc")) == (1, .revalidated))
        #expect(fixture.server.hits.count("stale") == 2)
        #expect(fixture.server.hits.count("stale/304") == 1)
        // Revalidated means stored anew: fresh again for another minute.
        fixture.date.advance(seconds: 30)
        #expect(try await fixture.send(fixture.request("stale", "etag=abc")) == (1, .hit))
        #expect(fixture.server.hits.count("stale") == 2)
    }

    @Test("Last-Modified revalidates too; a changed resource replaces the entry", arguments: TransportKind.allCases)
    func lastModifiedAndChangedResource(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await fixture.send(fixture.request("modified", "modified=1"))
        fixture.date.advance(seconds: 61)
        #expect(try await fixture.send(fixture.request("modified", "modified=1")) == (1, .revalidated))
        #expect(fixture.server.hits.count("modified/304") == 1)
        // A new ETag does not match: the server answers 200 and the entry is replaced.
        _ = try await fixture.send(fixture.request("changed", "etag=e&version=1"))
        fixture.date.advance(seconds: 61)
        let request = fixture.request("changed", "etag=e&version=1")
        request.headerFields = [.ifNoneMatch: "\"other\""]
        #expect(try await fixture.send(request) == (2, .refreshed))
    }

    @Test("no-store is never cached; HTTP semantics follow max-age and no-cache", arguments: TransportKind.allCases)
    func cacheControl(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        for _ in 0..<2 { _ = try await fixture.send(fixture.request("nostore", "cacheControl=no-store")) }
        #expect(fixture.server.hits.count("nostore") == 2)
        #expect(fixture.cache.memoryUsage == 0)

        let http = CachePolicy.http(defaultLifetime: .seconds(3600))
        _ = try await fixture.send(fixture.request("maxage", "cacheControl=max-age%3D10", policy: http))
        fixture.date.advance(seconds: 9)
        #expect(try await fixture.send(fixture.request("maxage", "cacheControl=max-age%3D10", policy: http)).cache == .hit)
        fixture.date.advance(seconds: 2)
        #expect(try await fixture.send(fixture.request("maxage", "cacheControl=max-age%3D10", policy: http)).cache == .refreshed)

        _ = try await fixture.send(fixture.request("nocache", "cacheControl=no-cache&etag=n", policy: http))
        #expect(try await fixture.send(fixture.request("nocache", "cacheControl=no-cache&etag=n", policy: http)).cache == .revalidated)
    }

    @Test("only answers that validate and parse are stored", arguments: TransportKind.allCases)
    func onlyParsedAnswersAreStored(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        for _ in 0..<2 {
            let result = await fixture.service.result(of: fixture.request("badcode", "code=7"))
            guard case .failure(.businessCode) = result else { Issue.record("expected businessCode, got \(result)"); return }
        }
        #expect(fixture.server.hits.count("badcode") == 2)
        #expect(fixture.cache.memoryUsage == 0)
    }

    @Test("the key separates methods, query, body, version and sensitive data", arguments: TransportKind.allCases)
    func keysSeparate(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await fixture.send(fixture.request("keys", "a=1"))
        #expect(try await fixture.send(fixture.request("keys", "a=2")).cache == .miss)
        #expect(try await fixture.send(fixture.request("keys", "a=1", policy: CachePolicy(lifetime: .seconds(60), version: 2))).cache == .miss)
        #expect(try await fixture.send(fixture.request("keys", "a=1", policy: CachePolicy(lifetime: .seconds(60), sensitiveData: "user-7"))).cache == .miss)
        #expect(try await fixture.send(fixture.request("keys", "a=1")).cache == .hit)
        #expect(fixture.server.hits.count("keys") == 4)
        let one = CacheKey(method: "POST", url: fixture.server.baseURL, body: Data("a=1".utf8), policy: CachePolicy(lifetime: .seconds(1)))
        let two = CacheKey(method: "POST", url: fixture.server.baseURL, body: Data("a=2".utf8), policy: CachePolicy(lifetime: .seconds(1)))
        #expect(one != two && one.fileName != two.fileName)
    }

    @Test("reload always asks the network and stores the answer", arguments: TransportKind.allCases)
    func reload(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        _ = try await fixture.send(fixture.request("reload"))
        #expect(try await fixture.send(fixture.request("reload", policy: CachePolicy(lifetime: .seconds(60), mode: .reload))) == (2, .miss))
        #expect(try await fixture.send(fixture.request("reload")) == (2, .hit))
    }

    @Test("cachedValue reads the last parsed entry synchronously, fresh or stale", arguments: TransportKind.allCases)
    func cachedValue(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        #expect(try fixture.service.cachedValue(for: fixture.request("sync")) == nil)
        _ = try await fixture.send(fixture.request("sync"))
        let fresh = try fixture.service.cachedValue(for: fixture.request("sync"))
        #expect(fresh?.value["hit"]?.intValue == 1 && fresh?.isFresh == true)
        fixture.date.advance(seconds: 120)
        #expect(try fixture.service.cachedValue(for: fixture.request("sync"))?.isFresh == false)
        #expect(try fixture.service.cachedValue(for: fixture.request("sync", policy: nil)) == nil)
    }

    @Test("cache then network calls the handlers with the cached value, then the network's", arguments: TransportKind.allCases)
    func cacheThenNetwork(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        let policy = CachePolicy(lifetime: .seconds(60), mode: .cacheThenNetwork)
        let first = try await fixture.send(fixture.request("then", policy: policy))
        #expect(first == (1, .miss))

        let request = fixture.request("then", policy: policy)
        let seen = Recorder<(Int64?, RequestState)>()
        await withCheckedContinuation { continuation in
            request.addCompletionHandler { request, result in
                seen.append((result.success?["hit"]?.intValue, request.state))
                if request.state == .finished { continuation.resume() }
            }
            fixture.service.start(request)
        }
        #expect(seen.all.map(\.0) == [1, 2])
        #expect(seen.all.map(\.1) == [.running, .finished])
        #expect(request.metrics?.cache == .refreshed)

        var replies: [(Int64?, Bool)] = []
        for try await reply in fixture.service.replies(to: fixture.request("then", policy: policy)) {
            replies.append((reply.value["hit"]?.intValue, reply.metrics.isFromCache))
        }
        #expect(replies.map(\.0) == [2, 3] && replies.map(\.1) == [true, false])
    }

    @Test("the disk cache survives a new service, and drops corrupt, truncated and foreign files", arguments: TransportKind.allCases)
    func diskCache(transport: TransportKind) async throws {
        let folder = try TestFolder()
        let lines = Protected<[(Logger.Level, String)]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let fixture = try await CacheFixture.start(directory: folder.url, logger: logger)
        defer { fixture.server.stop() }
        _ = try await fixture.send(fixture.request("disk"))
        let files = folder.contents.filter { $0.hasSuffix(".nkcache") }
        #expect(files.count == 1)

        // A new service and cache (empty memory), same directory: answered from disk.
        let again = ResponseCache(directory: folder.url, logger: logger)
        let service = CacheFixture.service(for: fixture.server, cache: again, clock: fixture.date.clock)
        let reply = try await service.reply(to: fixture.request("disk"))
        #expect(reply.metrics.cache == .hit && reply.value["hit"]?.intValue == 1)
        #expect(fixture.server.hits.count("disk") == 1)

        guard let name = files.first else { return }
        let file = folder.url.appendingPathComponent(name)
        let original = try Data(contentsOf: file)
        var flipped = original
        flipped[flipped.count - 3] ^= 0xFF
        for damaged in [original.prefix(original.count / 2), flipped, Data("not a cache file".utf8), Data()] {
            try damaged.write(to: file)
            let fresh = ResponseCache(directory: folder.url, logger: logger)
            let reply = try await CacheFixture.service(for: fixture.server, cache: fresh, clock: fixture.date.clock)
                .reply(to: fixture.request("disk"))
            #expect(reply.metrics.cache == .miss)
            // The network's answer replaced the damaged file with a good one.
            #expect(try CacheEntryFile.decode(Data(contentsOf: file)).key.contains("/cache/disk"))
        }
        #expect(fixture.server.hits.count("disk") == 5)
        #expect(lines.snapshot.filter { $0.0 == .warning && $0.1.contains("dropping cache file") }.count == 4)
    }

    @Test("memory and disk caps evict the least recently used entries", arguments: TransportKind.allCases)
    func eviction(transport: TransportKind) async throws {
        let folder = try TestFolder()
        // Each answer is ~4 KB: three fit in 14 KB, a fourth does not.
        let fixture = try await CacheFixture.start(memory: 14_000, disk: 14_500, directory: folder.url)
        defer { fixture.server.stop() }
        for key in ["e1", "e2", "e3"] { _ = try await fixture.send(fixture.request(key, "pad=4000")) }
        #expect(try await fixture.send(fixture.request("e1", "pad=4000")).cache == .hit)   // e1 used last now
        _ = try await fixture.send(fixture.request("e4", "pad=4000"))
        #expect(fixture.cache.memoryUsage <= 14_000)
        #expect(fixture.cache.diskUsage <= 14_500)
        #expect(folder.contents.filter { $0.hasSuffix(".nkcache") }.count < 4)
        #expect(try await fixture.send(fixture.request("e1", "pad=4000")).cache == .hit)
        #expect(try await fixture.send(fixture.request("e2", "pad=4000")).cache == .miss)
    }

    @Test("concurrent misses of one key send one request when the policy coalesces", arguments: TransportKind.allCases)
    func coalescedMisses(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        let policy = CachePolicy(lifetime: .seconds(60), coalescesMisses: true)
        let hits = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<20 {
                group.addTask { try await fixture.send(fixture.request("coalesce", "pad=20000", policy: policy)).hit }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(hits == Array(repeating: 1, count: 20))
        #expect(fixture.server.hits.count("coalesce") == 1)
    }

    @Test("a request waiting for a coalesced miss can be cancelled", arguments: TransportKind.allCases)
    func cancelWhileWaiting(transport: TransportKind) async throws {
        let fixture = try await CacheFixture.start(transport: transport)
        defer { fixture.server.stop() }
        let coalescer = fixture.cache.coalescer
        #expect(await coalescer.lead("/cache/wait"))
        let waiter = Task { await coalescer.lead("/cache/wait") }
        waiter.cancel()
        #expect(await waiter.value == false)
        coalescer.finish("/cache/wait")
        #expect(await coalescer.lead("/cache/wait"))
        coalescer.finish("/cache/wait")
    }
}

@Suite("Cache files and Cache-Control")
struct CacheUnitTests {
    @Test func entryFilesRoundTripAndRefuseDamage() throws {
        let entry = CacheEntry(key: "GET http://x/ v0", url: URL(string: "http://x/"), status: 200,
                               headerFields: [.eTag: "\"1\""], body: Data("{}".utf8), storedAt: Date(timeIntervalSince1970: 5))
        let data = try CacheEntryFile.encode(entry)
        let decoded = try CacheEntryFile.decode(data)
        #expect(decoded.key == entry.key && decoded.body == entry.body && decoded.storedAt == entry.storedAt)
        #expect(throws: CacheEntryFile.Failure.truncated) { try CacheEntryFile.decode(data.dropLast()) }
        #expect(throws: CacheEntryFile.Failure.notACacheFile) { try CacheEntryFile.decode(Data("GIF89a......".utf8)) }
        var longer = data
        longer.append(0)
        #expect(throws: CacheEntryFile.Failure.self) { try CacheEntryFile.decode(longer) }
        // Every prefix and every single-byte flip is refused or reads back the same entry: never a crash.
        for count in 0..<data.count { _ = try? CacheEntryFile.decode(data.prefix(count)) }
        for index in data.indices {
            var flipped = data
            flipped[index] ^= 0x55
            if let read = try? CacheEntryFile.decode(flipped) { #expect(read.body == entry.body || read.key != entry.key) }
        }
    }

    @Test("an entry file keeps its fields in order, repeated ones apart; a file of the first format is refused")
    func entryFilesKeepFieldsApart() throws {
        var fields: HTTPFields = [.contentType: "application/json"]
        fields.append(HTTPField(name: .setCookie, value: "a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT"))
        fields.append(HTTPField(name: .vary, value: "Accept"))
        fields.append(HTTPField(name: .setCookie, value: "b=2"))
        let entry = CacheEntry(key: "k", url: nil, status: 200, headerFields: fields, body: Data(), storedAt: Date())
        let decoded = try CacheEntryFile.decode(try CacheEntryFile.encode(entry))
        #expect(decoded.headerFields == fields)
        #expect(decoded.headerFields[values: .setCookie] == ["a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT", "b=2"])
        var first = try CacheEntryFile.encode(entry)
        first.replaceSubrange(0..<8, with: Data("NKCACHE1".utf8))
        #expect(throws: CacheEntryFile.Failure.notACacheFile) { try CacheEntryFile.decode(first) }
    }

    @Test("an entry file whose status is not three digits is refused, not trapped on")
    func entryFilesRefuseImpossibleStatuses() throws {
        for status in [1234, -1, 1000] as [Int64] {
            let header: [String: JSON] = ["key": "k", "status": .int(status), "fields": [], "stored": 0.0, "length": 0,
                                          "crc": .int(Int64(CRC32.checksum(Data())))]
            let json = try JSON.object(header).serialized()
            var data = CacheEntryFile.magic
            withUnsafeBytes(of: UInt32(json.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(json)
            #expect(throws: CacheEntryFile.Failure.corrupt("header fields")) { try CacheEntryFile.decode(data) }
        }
        #expect(HTTPResponse.Status(received: 1000) == nil && HTTPResponse.Status(received: -1) == nil)
        #expect(HTTPResponse.Status(received: 999)?.code == 999)
    }

    @Test("a 304 replaces the stored fields of each name it sends, and keeps the body's framing")
    func revalidationReplacesFieldsByName() {
        var stored: HTTPFields = [.contentType: "application/json", .contentLength: "2", .eTag: "\"1\""]
        stored.append(HTTPField(name: .vary, value: "Accept"))
        stored.append(HTTPField(name: .vary, value: "Accept-Language"))
        let entry = CacheEntry(key: "k", url: nil, status: 200, headerFields: stored, body: Data("{}".utf8),
                               storedAt: Date(timeIntervalSince1970: 0))
        var sent: HTTPFields = [.eTag: "\"2\"", .vary: "Accept-Encoding", .contentLength: "0", .cacheControl: "max-age=9"]
        sent.append(HTTPField(name: .contentType, value: "text/plain"))
        let refreshed = entry.revalidated(by: ResponseHead(url: nil, status: 304, headerFields: sent),
                                          at: Date(timeIntervalSince1970: 10))
        #expect(refreshed.headerFields[.eTag] == "\"2\"")
        #expect(refreshed.headerFields[values: .vary] == ["Accept-Encoding"])
        #expect(refreshed.headerFields[.cacheControl] == "max-age=9")
        #expect(refreshed.headerFields[.contentLength] == "2" && refreshed.headerFields[.contentType] == "application/json")
        #expect(entry.conditionalHeaderFields == [.ifNoneMatch: "\"1\""])
    }

    @Test("20,000 mutated entry files (flips, cuts, splices, forged lengths) are refused or read back whole")
    func fuzzEntryFiles() throws {
        var random = SeededGenerator(seed: 42)
        let body = Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let entry = CacheEntry(key: "GET http://x/a?b=1 v3 s:u", url: URL(string: "http://x/a?b=1"), status: 203,
                               headerFields: [.eTag: "\"e\"", .cacheControl: "max-age=5"], body: body, storedAt: Date())
        let valid = try CacheEntryFile.encode(entry)
        var accepted = 0
        for _ in 0..<20_000 {
            var data = valid
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    data[Int.random(in: 0..<data.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                }
            case 1:
                data = data.prefix(Int.random(in: 0..<data.count, using: &random))
            case 2:
                let at = Int.random(in: 0..<data.count, using: &random)
                data.insert(contentsOf: valid.prefix(Int.random(in: 0..<64, using: &random)), at: at)
            case 3:
                let forged = UInt32.random(in: 0...UInt32.max, using: &random).bigEndian
                withUnsafeBytes(of: forged) { data.replaceSubrange(8..<12, with: $0) }
            default:
                data = Data((0..<Int.random(in: 0..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            }
            guard let read = try? CacheEntryFile.decode(data) else { continue }
            accepted += 1
            // What the checks let through is whole: the CRC-32 vouches for the body it read.
            if read.key == entry.key && read.body.count == body.count { #expect(read.body == body) }
        }
        #expect(accepted < 20_000)
    }

    @Test func cacheControlDirectives() {
        let publicControl = CacheControl([.cacheControl: "public, max-age=30"])
        #expect(publicControl.maxAge == 30 && !publicControl.noCache && !publicControl.noStore)
        #expect(CacheControl([.cacheControl: "no-store"]).noStore)
        let quoted = CacheControl([.cacheControl: "no-cache, max-age=\"5\""])
        #expect(quoted.noCache && quoted.maxAge == 5)
        #expect(CacheControl([.cacheControl: ",,=,max-age=-4, max-age=x"]).maxAge == nil)
    }
}
