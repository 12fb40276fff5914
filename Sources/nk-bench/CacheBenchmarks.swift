import FixtureServer
import Foundation
import NetworkKit

/// The response cache: 10,000 requests answered by a fresh entry of a ~10 KB JSON answer, from
/// memory and from disk (a cache without memory), through `Service.send` and the whole
/// pipeline, against parsing the same bytes directly with the same parser. Rounds alternate;
/// medians are printed with the ratios (targets: memory ≤ 1.2, disk ≤ 2.0).
///
/// Two bodies: a feed of 70 items (what an API answers) and a single 10 KB string, which parses
/// many times faster and so shows the pipeline's fixed cost per request nearly alone.
struct CacheBenchmarks {
    let server: FixtureServer
    let count = 10_000
    let rounds = 5

    func run() async throws {
        for (label, query) in [("feed of 70 items", "items=70"), ("one 10 KB string", "pad=10000")] {
            try await run(label: label, path: "/cache/bench-\(query.prefix(5))?\(query)")
        }
    }

    private func run(label: String, path: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nk-bench-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let memory = service(ResponseCache(memoryCapacity: 16 << 20))
        let disk = service(ResponseCache(memoryCapacity: 0, directory: folder))
        let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))

        // Fill both caches, and keep the bytes for the direct baseline.
        let request = { self.request(path, parser) }
        let reply = try await memory.reply(to: request())
        _ = try await disk.send(request())
        let body = try await Service(configuration: ServiceConfiguration(baseURL: server.baseURL))
            .send(Request(path: path))
        let response = Response(url: nil, status: 200, headerFields: reply.head.headerFields, data: body)
        guard try await memory.reply(to: request()).metrics.cache == .hit,
              try await disk.reply(to: request()).metrics.cache == .hit else {
            throw BenchError.wrongAnswer
        }

        var direct: [Double] = [], fromMemory: [Double] = [], fromDisk: [Double] = []
        for _ in 0..<rounds {
            direct.append(try time { _ = try parser.parse(response) })
            fromMemory.append(try await timeAsync { _ = try await memory.send(request()) })
            fromDisk.append(try await timeAsync { _ = try await disk.send(request()) })
        }
        let base = median(direct)
        print(String(format: "cache hits x%d, %@ (%d bytes): parse directly %.1f ms, from memory %.1f ms (ratio %.2f), from disk %.1f ms (ratio %.2f)",
                     count, label, body.count, base * 1000, median(fromMemory) * 1000, median(fromMemory) / base,
                     median(fromDisk) * 1000, median(fromDisk) / base))
    }

    private func service(_ cache: ResponseCache) -> Service {
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.responseCache = cache
        return Service(configuration: configuration)
    }

    private func request(_ path: String, _ parser: JSONParser) -> Request<JSON> {
        let request = Request(path: path, parser: parser)
        request.cache = CachePolicy(lifetime: .seconds(3600))
        return request
    }

    private func time(_ body: () throws -> Void) throws -> Double {
        let started = ContinuousClock.now
        for _ in 0..<count { try body() }
        return (ContinuousClock.now - started).milliseconds / 1000
    }

    private func timeAsync(_ body: () async throws -> Void) async throws -> Double {
        let started = ContinuousClock.now
        for _ in 0..<count { try await body() }
        return (ContinuousClock.now - started).milliseconds / 1000
    }
}
