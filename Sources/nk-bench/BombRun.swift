import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NK_BENCH_ONLY=bomb`: what a bomb in each coding of `NK_BOMB_CODINGS` (`gzip br zstd` by
/// default: `Content-Encoding: gzip`, `br`, `zstd`, `NK_BOMB_MB` MiB of zeros decoded, 128 by
/// default) costs in peak resident memory under an 8 MiB response limit,
/// through NetworkKit on URLSession, through a bare URLSession delegate that counts and cancels
/// at the same limit, and through NetworkKit on NIO. The server runs in a process of its own
/// (`LoadServer`). The bare delegate shows what the platform allows: when it grows as much as
/// the kit, the memory is FoundationNetworking's, not the kit's.
enum BombRun {
    static let limit = 8 * 1024 * 1024

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let megabytes = Int(environment["NK_BOMB_MB"] ?? "") ?? 128
        let codings = (environment["NK_BOMB_CODINGS"] ?? "gzip br zstd").split(separator: " ").map(String.init)
        let server = try LoadServer()
        defer { server.stop() }
        for coding in codings {
            let url = server.baseURL.absoluteString + "/bomb?mb=\(megabytes)&coding=\(coding)"
            // The server makes each bomb once: ask for it before measuring (through the kit on
            // NIO, which stops at the limit: nothing of it stays in this process).
            let made = ContinuousClock.now
            _ = await kit(url: url, transport: NIOTransport())
            print("bomb: \(megabytes) MiB of zeros as \(coding) (the server made it in \(made.duration(to: .now))), "
                  + "8 MiB limit; peak RSS growth in this process:")
            try await measure(url: url)
        }
    }

    /// Each way of fetching the bomb at `url`, with its peak memory growth.
    private static func measure(url: String) async throws {
        let cases: [(String, () async -> String)] = [
            ("NetworkKit on URLSession", { await kit(url: url, transport: nil) }),
            ("bare URLSession delegate", { await bare(url: url) }),
            ("NetworkKit on NIO", { await kit(url: url, transport: NIOTransport()) }),
        ]
        for (name, body) in cases {
            guard ResidentMemory.resetPeak(), let before = ResidentMemory.current else {
                print("  \(name): cannot read this process's peak memory (/proc/self)")
                continue
            }
            let started = ContinuousClock.now
            let outcome = await body()
            let elapsed = started.duration(to: .now)
            let growth = Double((ResidentMemory.peak ?? before) - before) / 1_048_576
            print(String(format: "  %@: +%.0f MiB peak, %.2f s, %@", name, growth,
                         Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds), outcome))
        }
    }

    /// One request through a service on `transport` (URLSession when nil).
    private static func kit(url: String, transport: (any Transport)?) async -> String {
        let configuration = ServiceConfiguration()
        let service = transport.map { Service(configuration: configuration, transport: $0) } ?? Service(configuration: configuration)
        let request = Request(url: url)
        request.maxResponseBytes = Int64(limit)
        switch await service.result(of: request) {
        case .success(let data): return "\(data.count) bytes (not stopped)"
        case .failure(let error): return "\(error)"
        }
    }

    /// A delegate that counts the bytes URLSession delivers and cancels past the limit.
    private static func bare(url: String) async -> String {
        let counter = CountingDelegate()
        let session = URLSession(configuration: .default, delegate: counter, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        guard let target = URL(string: url) else { return "bad URL" }
        return await withCheckedContinuation { continuation in
            counter.finish = { received, error in
                continuation.resume(returning: "\(received) bytes delivered, then \(error.map { "\($0.code)" } ?? "no error")")
            }
            session.dataTask(with: target).resume()
        }
    }
}

/// Counts delivered bytes, cancels the task past `BombRun.limit`, reports once at the end.
/// `@unchecked Sendable`: its state is touched only on the session's serial delegate queue.
private final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var received = 0
    var finish: ((Int, URLError?) -> Void)?

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received += data.count
        if received > BombRun.limit { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish?(received, error as? URLError)
        finish = nil
    }
}

private extension String {
    func asURL() throws -> URL {
        guard let url = URL(string: self) else { throw URLError(.badURL) }
        return url
    }
}
