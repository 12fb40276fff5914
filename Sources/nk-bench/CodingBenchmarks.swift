import CBrotli
import CZstd
import Foundation
import NetworkKit
import NetworkKitNIO

/// `NK_BENCH_ONLY=codings`: brotli and zstd answers of 1 MB and 32 MB (decoded), from the fixture
/// server in a process of its own: the kit on NIO against `curl --compressed -o /dev/null` fetching
/// the same URL as often on one connection (kit / curl, time), and the kit's streaming decoder
/// against the C library's own streaming decode of the same bytes into a buffer of the same size
/// (C / kit, time: the kit's share of the library's throughput); first the same bodies not
/// encoded, fetched the same way, to tell the transfer's cost from the decoder's. Alternating
/// rounds, medians.
enum CodingBenchmarks {
    static func run() async throws {
        let server = try LoadServer()
        defer { server.stop() }
        var configuration = ServiceConfiguration()
        configuration.maxResponseBytes = 64 << 20
        let service = Service(configuration: configuration, transport: NIOTransport())
        let rounds = Int(ProcessInfo.processInfo.environment["NK_CODING_ROUNDS"] ?? "") ?? 5
        // The same bodies not encoded, the same way: what the transfer costs without a decoder;
        // and a bare AsyncHTTPClient collecting the same body, for what NIO itself costs.
        let bare = BareAsyncHTTPClient()
        defer { bare.shutdown() }
        for (label, items, repeats) in [("1 MB", 20_000, 20), ("32 MB", 640_000, 2)] {
            let url = server.baseURL.absoluteString + "/compressed/identity?count=\(items)"
            _ = try await service.send(Request(url: url))
            var network: [[Double]] = [], nio: [[Double]] = []
            for round in 0..<rounds {
                let kit = { try await seconds { for _ in 0..<repeats { _ = try await service.send(Request(url: url)) } } }
                let curl = { try await seconds { try await fetchWithCurl(url, times: repeats) } }
                let bareCollect = { try await seconds { for _ in 0..<repeats { try await bare.collect(url) } } }
                network.append(round % 2 == 0 ? [try await kit(), try await curl()] : ([try await curl(), try await kit()]).reversed())
                nio.append(round % 2 == 0 ? [try await kit(), try await bareCollect()] : ([try await bareCollect(), try await kit()]).reversed())
            }
            let fetch = medianRound(network), alone = medianRound(nio)
            print(String(format: "codings: identity %@ · kit on NIO / curl --compressed: %.2f (%.1f ms / %.1f ms a GET); "
                         + "kit / bare AsyncHTTPClient collecting it: %.2f (%.1f ms / %.1f ms)",
                         label, fetch[0] / fetch[1], fetch[0] * 1000 / Double(repeats), fetch[1] * 1000 / Double(repeats),
                         alone[0] / alone[1], alone[0] * 1000 / Double(repeats), alone[1] * 1000 / Double(repeats)))
        }
        for coding in [ContentCoding.brotli, .zstd] {
            // About 52 bytes an item: 20,000 items are 1 MB, 640,000 are 33 MB.
            for (label, items, repeats) in [("1 MB", 20_000, 20), ("32 MB", 640_000, 2)] {
                let url = server.baseURL.absoluteString + "/compressed/\(coding.rawValue)?count=\(items)"
                let decoded = try await service.send(Request(url: url))  // the server compresses it once, now
                let encoded = try await curlBytes(url)
                var network: [[Double]] = [], decoding: [[Double]] = []
                for round in 0..<rounds {
                    let kit = { try await seconds { for _ in 0..<repeats { _ = try await service.send(Request(url: url)) } } }
                    let curl = { try await seconds { try await fetchWithCurl(url, times: repeats) } }
                    network.append(round % 2 == 0 ? [try await kit(), try await curl()] : ([try await curl(), try await kit()]).reversed())
                    let ours = { try await seconds { for _ in 0..<repeats { try kitDecode(encoded, coding: coding, expected: decoded.count) } } }
                    let theirs = { try await seconds { for _ in 0..<repeats { try libraryDecode(encoded, coding: coding, expected: decoded.count) } } }
                    decoding.append(round % 2 == 0 ? [try await ours(), try await theirs()] : ([try await theirs(), try await ours()]).reversed())
                }
                let fetch = medianRound(network), decode = medianRound(decoding)
                print(String(format: "codings: %@ %@ (%d bytes encoded) · kit on NIO / curl --compressed: %.2f (%.1f ms / %.1f ms a GET)",
                             coding.name, label, encoded.count, fetch[0] / fetch[1],
                             fetch[0] * 1000 / Double(repeats), fetch[1] * 1000 / Double(repeats)))
                print(String(format: "codings: %@ %@ · decoder throughput, kit / the C library: %.2f (%.0f MB/s / %.0f MB/s)",
                             coding.name, label, decode[1] / decode[0],
                             Double(decoded.count * repeats) / decode[0] / 1e6, Double(decoded.count * repeats) / decode[1] / 1e6))
            }
        }
    }

    private static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let started = ContinuousClock.now
        try await body()
        let elapsed = started.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The body at `url` as sent (curl without `--compressed` decodes nothing).
    private static func curlBytes(_ url: String) async throws -> Data {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await runCurl(["-s", "-o", file.path, url])
        return try Data(contentsOf: file)
    }

    /// `curl --compressed` fetching `url` `times` times on one connection, each body to /dev/null.
    private static func fetchWithCurl(_ url: String, times: Int) async throws {
        try await runCurl(["-s", "--compressed"] + Array(repeating: ["-o", "/dev/null", url], count: times).flatMap { $0 })
    }

    private static func runCurl(_ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { finished in
                if finished.terminationStatus == 0 { continuation.resume() } else { continuation.resume(throwing: BenchError.wrongAnswer) }
            }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }

    /// The kit's decoder, fed 16 KiB at a time as a socket would, counting what it delivers.
    private static func kitDecode(_ encoded: Data, coding: ContentCoding, expected: Int) throws {
        let inflater = StreamingInflater(coding: coding)
        var count = 0
        try encoded.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 16 * 1024)
                try inflater.inflate(UnsafeRawBufferPointer(rebasing: bytes[offset..<end])) { count += $0.count }
                offset = end
            }
        }
        try inflater.finish()
        guard count == expected else { throw BenchError.wrongAnswer }
    }

    /// The C library's own streaming decode, fed 16 KiB at a time into a 64 KiB buffer.
    private static func libraryDecode(_ encoded: Data, coding: ContentCoding, expected: Int) throws {
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        var count = 0
        try encoded.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw BenchError.wrongAnswer }
            try output.withUnsafeMutableBufferPointer { out in
                guard let target = out.baseAddress else { throw BenchError.wrongAnswer }
                if coding == .brotli {
                    guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { throw BenchError.wrongAnswer }
                    defer { BrotliDecoderDestroyInstance(state) }
                    var offset = 0
                    while offset < bytes.count {
                        var availableIn = min(16 * 1024, bytes.count - offset)
                        var nextIn: UnsafePointer<UInt8>? = base + offset
                        var result = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT
                        while result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT {
                            var availableOut = out.count
                            var nextOut: UnsafeMutablePointer<UInt8>? = target
                            result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                            count += out.count - availableOut
                        }
                        guard result != BROTLI_DECODER_RESULT_ERROR else { throw BenchError.wrongAnswer }
                        offset = nextIn.map { $0 - base } ?? bytes.count
                    }
                } else {
                    guard let context = ZSTD_createDCtx() else { throw BenchError.wrongAnswer }
                    defer { ZSTD_freeDCtx(context) }
                    var offset = 0
                    while offset < bytes.count {
                        var input = ZSTD_inBuffer(src: base + offset, size: min(16 * 1024, bytes.count - offset), pos: 0)
                        repeat {
                            var target = ZSTD_outBuffer(dst: target, size: out.count, pos: 0)
                            guard ZSTD_isError(ZSTD_decompressStream(context, &target, &input)) == 0 else { throw BenchError.wrongAnswer }
                            count += target.pos
                            if input.pos == input.size && target.pos < target.size { break }
                        } while true
                        offset += input.size
                    }
                }
            }
        }
        guard count == expected else { throw BenchError.wrongAnswer }
    }
}
