import FixtureServer
import Foundation

/// `nk-bench`: every benchmark of the kit, each printed as a ratio against a baseline run
/// in the same process (lower is better). Build in release: `swift run -c release --enable-all-traits nk-bench`;
/// `NK_BENCH_ONLY=network` or `NK_BENCH_ONLY=images` runs one half, `NK_BENCH_ONLY=service` the
/// requests through `Service` against a bare URLSession alone (the network half without the model
/// comparison), `NK_BENCH_ONLY=model` the model comparison alone, `NK_BENCH_ONLY=transfers` the downloads to disk and the upload,
/// `NK_BENCH_ONLY=cache` the response cache's hits, `NK_BENCH_ONLY=nio` the SwiftNIO transport
/// against bare AsyncHTTPClient and against URLSession, `NK_BENCH_ONLY=thumbnails` thumbnails under
/// load and of huge PNGs (`ThumbnailBenchmarks`), `NK_BENCH_ONLY=load` the load and leak run
/// (`LoadRun`), `NK_BENCH_ONLY=bomb` a bomb's memory in each coding on each transport (`BombRun`),
/// `NK_BENCH_ONLY=codings` brotli and zstd answers against curl and the C libraries (`CodingBenchmarks`),
/// `NK_BENCH_ONLY=h2spread` HTTP/2 requests spread over several connections to nghttpd allowing 8
/// streams, against a bare AsyncHTTPClient and h2load (`HTTP2SpreadBenchmarks`),
/// `NK_BENCH_ONLY=streams` the event-stream parser against its peers and streams end to end
/// (`StreamBenchmarks`), `NK_BENCH_ONLY=tls` a pinned handshake against an unpinned one on NIO
/// (`TLSBenchmarks`), `NK_BENCH_ONLY=progressive` thumbnails of a progressive JPEG against its full
/// decode (`ProgressiveThumbnailBenchmarks`), `NK_BENCH_ONLY=previews` a progressive JPEG's
/// previews as it arrives (`ImagePreviewBenchmarks`), `NK_BENCH_ONLY=websocket` WebSockets against
/// a bare NIOWebSocket client (`WebSocketBenchmarks`), `NK_BENCH_ONLY=har` loading and replaying
/// a 10,000-entry HAR (`HARBenchmarks`), `NK_BENCH_ONLY=observability` the `Observability`
/// trait's spans and metrics against none (`ObservabilityBenchmarks`), `NK_BENCH_ONLY=openapi` a
/// generated OpenAPI client on the kit's `ClientTransport` against it on swift-openapi-runtime's own
/// transports (`OpenAPIBenchmarks`). The last twelve are not part of the default run.
@main
enum Bench {
    /// Runs the benchmarks; a failure (a missing tool, a wrong answer) is one line on standard
    /// error and exit status 1, not a crash with a backtrace.
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("nk-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    private static func run() async throws {
        let only = ProcessInfo.processInfo.environment["NK_BENCH_ONLY"]  // network | service | images | model | transfers | cache | nio | thumbnails | load | bomb | codings | h2spread | streams | tls | rotation | progressive | previews | websocket | har | observability | openapi
        if ProcessInfo.processInfo.environment["NK_BENCH_SERVE"] == "1" { return try await LoadServer.serve() }
        if only == "load" { return try await LoadRun.runAll() }
        if only == "bomb" { return try await BombRun.run() }
        if only == "codings" { return try await Task.detached { try await CodingBenchmarks.run() }.value }
        if only == "tls" { return try await Task.detached { try await TLSBenchmarks.run() }.value }
        if only == "rotation" { return try await Task.detached { try await RotationBenchmarks.run() }.value }
        if only == "h2spread" { return try await Task.detached { try await HTTP2SpreadBenchmarks.run() }.value }
        if only == "progressive" { return try await Task.detached { try ProgressiveThumbnailBenchmarks.run() }.value }
        if only == "previews" { return try await Task.detached { try ImagePreviewBenchmarks.run() }.value }
        if only == "websocket" { return try await Task.detached { try await WebSocketBenchmarks().run() }.value }
        if only == "har" { return try await Task.detached { try await HARBenchmarks().run() }.value }
        let server = try await FixtureServer.start()
        defer { server.stop() }
        print("nk-bench against \(server.baseURL.absoluteString) (ratios: NetworkKit / baseline, lower is better)")
        if let mode = ProcessInfo.processInfo.environment["NK_BENCH_PROFILE"] {
            try await Task.detached { try await NetworkBenchmarks(server: server).profile(mode) }.value
            return
        }
        if only == "observability" {
            #if Observability
            return try await Task.detached { try await ObservabilityBenchmarks(server: server).run() }.value
            #else
            throw BenchError.traitOff("Observability")
            #endif
        }
        if only == "openapi" {
            return try await Task.detached { try await OpenAPIBenchmarks(server: server).run() }.value
        }
        if only == "thumbnails" {
            return try await Task.detached { try ThumbnailBenchmarks.run() }.value
        }
        if only == "nio" || only == nil {
            try await Task.detached { try await NIOBenchmarks(server: server).run() }.value
            if only == "nio" { return }
        }
        if only == "streams" {
            return try await Task.detached { try await StreamBenchmarks(server: server).run() }.value
        }
        if only == "transfers" {
            return try await Task.detached { try await TransferBenchmarks(server: server).run() }.value
        }
        if only == "cache" || only == nil {
            try await Task.detached { try await CacheBenchmarks(server: server).run() }.value
            if only == "cache" { return }
        }
        if only == "service" {
            return try await Task.detached { try await NetworkBenchmarks(server: server).run() }.value
        }
        if only != "images" {
            if only != "model" { try await Task.detached { try await NetworkBenchmarks(server: server).run() }.value }
            try ModelBenchmarks.run()
        }
        if only != "network" && only != "model" {
            try runImageBenchmarks()
        }
    }
}

/// The middle value of `values` (the upper one of the two middles for an even count).
func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}
