import FixtureAPI
import FixtureServer
import Foundation
import NetworkKit
import Testing

/// The requests the build plugin generated from Examples/FixtureAPI/openapi.yaml, sent to the
/// real fixture server: envelope and business-code check, path parameters, a form body, a JSON
/// body with a header, multipart, a download, and the cache.
@Suite struct FixtureAPITests {
    /// A service on a fresh fixture server; stopped when `body` returns.
    func withService(_ body: (FixtureServer, Service) async throws -> Void) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15)))
        try await body(server, service)
    }

    @Test func envelopeAndBusinessCode() async throws {
        try await withService { _, service in
            let feed = try await service.send(FixtureAPI.getFeed())
            #expect(feed.map(\.name) == ["Spring sale", "New arrivals"])
            #expect(feed.map(\.type) == [5, 2])

            let result = await service.result(of: FixtureAPI.getFeed(code: 1001, message: "token expired"))
            guard case .failure(.businessCode(let code, let message)) = result else {
                Issue.record("expected a business-code error, got \(result)")
                return
            }
            #expect(code == 1001 && message == "token expired")
        }
    }

    @Test func pathParameterSnakeCaseAndDates() async throws {
        try await withService { _, service in
            let profile = try await service.send(FixtureAPI.getProfile(id: 42))
            #expect(profile.userId == 42 && profile.displayName == "User 42" && profile.role == .member)
            #expect(profile.avatarUrl == nil)
            #expect(profile.createdAt == ISO8601DateFormatter().date(from: "2026-11-02T10:00:00Z"))
            let missing = await service.result(of: FixtureAPI.getProfile(id: 1, code: 404))
            #expect(missing.failure.map { "\($0)" }?.contains("no such profile") == true, "\(missing)")

            let page = try await service.send(FixtureAPI.listItems(list: "generated \(UUID().uuidString)", page: 2, size: 5, style: .hasMore))
            #expect(page.items.map(\.id) == [6, 7, 8, 9, 10])
            #expect(page.hasMore == true && page.total == nil)
        }
    }

    @Test func formJSONAndMultipartBodies() async throws {
        try await withService { _, service in
            let form = try await service.send(FixtureAPI.echoForm(user: "ann", note: "a&b c"))
            #expect(form.method == "POST")
            #expect(form.body == "note=a%26b%20c&user=ann")
            #expect(form.headers?.first { $0.key.lowercased() == "content-type" }?.value.hasPrefix("application/x-www-form-urlencoded") == true)

            let json = try await service.send(try FixtureAPI.echoJSON(body: .init(displayName: "Ann", role: .admin), xTraceId: "t-1"))
            #expect(json.method == "PUT")
            #expect(json.body == #"{"display_name":"Ann","role":"admin"}"#)
            #expect(json.headers?.first { $0.key.lowercased() == "x-trace-id" }?.value == "t-1")

            let upload = try await service.send(FixtureAPI.uploadAvatar(caption: "me", avatar: Data(repeating: 7, count: 1000)))
            #expect(upload.parts.map(\.name) == ["caption", "avatar"])
            #expect(upload.parts.last?.size == 1000 && upload.parts.last?.contentType == "image/png")
        }
    }

    @Test func downloadToDisk() async throws {
        try await withService { _, service in
            let folder = try TemporaryFolder()
            let file = try await service.send(FixtureAPI.downloadFile(name: "report.bin", to: .directory(folder.url), size: 100_000))
            #expect(file.byteCount == 100_000)
            #expect(file.url.lastPathComponent == "report.bin")
            #expect(try Data(contentsOf: file.url) == Data(FixtureFile.bytes(seed: 1, offset: 0, count: 100_000)))
        }
    }

    @Test func cacheLifetimeFromTheConfiguration() async throws {
        try await withService { server, service in
            let key = "generated-\(UUID().uuidString.prefix(8))"
            var outcomes: [CacheOutcome] = []
            for _ in 0..<3 {
                let reply = try await service.reply(to: FixtureAPI.getCounted(key: key))
                #expect(reply.value.hit == 1)
                outcomes.append(reply.metrics.cache)
            }
            #expect(outcomes == [.miss, .hit, .hit])
            #expect(server.hits.count(key) == 1)
        }
    }

    @Test func handlersCancelAndInterceptorsWorkAsForAnyRequest() async throws {
        try await withService { _, service in
            let request = FixtureAPI.getFeed()
            let names = await withCheckedContinuation { continuation in
                request.addCompletionHandler { _, result in continuation.resume(returning: (try? result.get())?.count ?? -1) }
                service.start(request)
            }
            #expect(names == 2)
            #expect(FixtureAPI.models.hasConverter(for: FixtureAPI.Entrance.self) == false)
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
