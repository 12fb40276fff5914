import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads to disk through NetworkKit (on URLSession and on SwiftNIO), a bare URLSession data
/// task writing to a `FileHandle`, and `curl -o`, alternating in the same run; NetworkKit's peak
/// RSS while downloading; a
/// 100 MB multipart upload's peak RSS. `NK_BENCH_DOWNLOAD_MB` sets the size (1024 by default).
struct TransferBenchmarks {
    let server: FixtureServer
    let rounds = 5

    func run() async throws {
        let megabytes = Int(ProcessInfo.processInfo.environment["NK_BENCH_DOWNLOAD_MB"] ?? "") ?? 1024
        let size = megabytes << 20
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nk-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = server.url("/files/bench.bin?size=\(size)")
        let service = Service(configuration: ServiceConfiguration())
        let nio = Service(configuration: ServiceConfiguration(),
                          transport: NIOTransport())
        let raw = RawDownloader()
        var kit: [Double] = [], bare: [Double] = [], curl: [Double] = [], kitNIO: [Double] = []
        var peak = 0, barePeak = 0, nioPeak = 0
        for round in 0..<rounds {
            // Each client goes first in turn.
            var runs: [() async throws -> Void] = [
                {
                    let (seconds, rss) = try await measured(folder.appendingPathComponent("kit.bin")) {
                        _ = try await service.send(Request(download: RequestTarget(absolute: url), to: .file($0)))
                    }
                    kit.append(seconds)
                    peak = max(peak, rss)
                },
                {
                    let (seconds, rss) = try await measured(folder.appendingPathComponent("raw.bin")) {
                        try await raw.download(url, to: $0)
                    }
                    bare.append(seconds)
                    barePeak = max(barePeak, rss)
                },
                {
                    let (seconds, rss) = try await measured(folder.appendingPathComponent("nio.bin")) {
                        _ = try await nio.send(Request(download: RequestTarget(absolute: url), to: .file($0)))
                    }
                    kitNIO.append(seconds)
                    nioPeak = max(nioPeak, rss)
                },
                {
                    let curlFile = folder.appendingPathComponent("curl.bin")
                    curl.append(try await timedSeconds {
                        guard runTool(["curl", "-s", "-o", curlFile.path, url]) == 0 else { throw BenchError.wrongAnswer }
                    })
                    try? FileManager.default.removeItem(at: curlFile)
                },
            ]
            // NK_BENCH_CLIENT=0|1|2|3 runs one client alone (NetworkKit, URLSession, NetworkKit on NIO,
            // curl), for a profiler.
            if let only = Int(ProcessInfo.processInfo.environment["NK_BENCH_CLIENT"] ?? ""), runs.indices.contains(only) {
                runs = [runs[only]]
            } else {
                runs = Array(runs[(round % runs.count)...] + runs[..<(round % runs.count)])
            }
            for run in runs {
                // Each starts with no dirty pages left by the one before.
                runTool(["sync"])
                try await run()
            }
        }
        if ProcessInfo.processInfo.environment["NK_BENCH_VERBOSE"] != nil {
            print("rounds (s): NetworkKit \(kit), URLSession \(bare), NetworkKit on NIO \(kitNIO), curl \(curl)")
        }
        guard !kit.isEmpty, !bare.isEmpty, !curl.isEmpty, !kitNIO.isEmpty else { return }
        let (k, b, c, n) = (median(kit), median(bare), median(curl), median(kitNIO))
        let mb = Double(size) / 1_048_576
        print(String(format: "download %d MiB to disk: NetworkKit %.0f MiB/s, bare URLSession %.0f MiB/s, curl %.0f MiB/s; "
                     + "time ratio vs URLSession %.2f, vs curl %.2f; peak RSS growth: NetworkKit %.1f MiB, bare URLSession %.1f MiB",
                     megabytes, mb / k, mb / b, mb / c, k / b, k / c, Double(peak) / 1_048_576, Double(barePeak) / 1_048_576))
        print(String(format: "download %d MiB to disk on NIO: NetworkKit %.0f MiB/s, curl %.0f MiB/s; time ratio vs curl %.2f; "
                     + "peak RSS growth %.1f MiB", megabytes, mb / n, mb / c, n / c, Double(nioPeak) / 1_048_576))
        try await uploadPeak(folder: folder, service: service)
    }

    /// A 100 MB file part uploaded as multipart (assembled on disk, streamed): peak RSS growth.
    private func uploadPeak(folder: URL, service: Service) async throws {
        let file = folder.appendingPathComponent("upload.bin")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw BenchError.wrongAnswer }
        let handle = try FileHandle(forWritingTo: file)
        for block in 0..<100 { try handle.write(contentsOf: Data(FixtureFile.bytes(seed: 5, offset: block << 20, count: 1 << 20))) }
        try handle.close()
        var form = MultipartForm()
        try form.append(file: file, name: "file")
        let request = Request(url: server.url("/upload/multipart"), method: .post, parser: JSONParser())
        request.body = .multipart(form)
        request.timeLimit = .seconds(600)
        let (seconds, rss) = try await RSSSampler.peak { try await timedSeconds { _ = try await service.send(request) } }
        print(String(format: "multipart upload of a 100 MiB file part: %.1f s, NetworkKit peak RSS growth %.1f MiB",
                     seconds, Double(rss) / 1_048_576))
    }

    /// One download to `file`: its seconds and the peak RSS growth meanwhile; the file is removed.
    private func measured(_ file: URL, _ download: (URL) async throws -> Void) async throws -> (Double, Int) {
        defer { try? FileManager.default.removeItem(at: file) }
        return try await RSSSampler.peak { try await timedSeconds { try await download(file) } }
    }

    private func timedSeconds(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return start.duration(to: .now).milliseconds / 1000
    }
}

/// The baseline: a delegate data task writing each chunk to a `FileHandle`, nothing else.
final class RawDownloader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked Sendable`: `handle` and `continuation` are set before the task starts and then
    // touched only by the session's serial delegate queue.
    private var handle: FileHandle?
    private var continuation: CheckedContinuation<Void, any Error>?
    private lazy var session: URLSession = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        // The service's session configuration, as for every bare URLSession baseline (here the
        // default `URLCache` would cost one lookup on disk, nothing measurable).
        return URLSession(configuration: URLSessionTransport.sessionConfiguration(.default), delegate: self, delegateQueue: queue)
    }()

    func download(_ url: String, to file: URL) async throws {
        guard let target = URL(string: url) else { throw BenchError.wrongAnswer }
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw BenchError.wrongAnswer }
        handle = try FileHandle(forWritingTo: file)
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            session.dataTask(with: target).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        handle?.write(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        try? handle?.close()
        handle = nil
        if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
        continuation = nil
    }
}

/// Samples the process's RSS every 20 ms while `body` runs; returns its value and the peak
/// growth over the RSS at the start.
enum RSSSampler {
    static func peak<T: Sendable>(_ body: () async throws -> T) async throws -> (T, Int) {
        let start = ResidentMemory.current ?? 0
        let peak = Protected(start)
        let sampler = Task.detached {
            while !Task.isCancelled {
                let now = ResidentMemory.current ?? 0
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let value = try await body()
        sampler.cancel()
        return (value, peak.snapshot - start)
    }
}

