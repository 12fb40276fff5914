import AsyncHTTPClient
import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO
import NIOCore

/// Streams end to end on loopback (`NK_BENCH_ONLY=streams`, with the parser benchmarks):
/// - 200,000 small events over NIO: the kit's `ItemStream` against bare AsyncHTTPClient reading
///   the same body and splitting it into lines, in the same process (bound: ≤ 1.15), medians of
///   five interleaved rounds;
/// - the time from the server writing an event to the item handler seeing it, while the body goes
///   on: median and p99 on both transports;
/// - 1 GiB of JSON Lines decoded into models by a consumer that sleeps 1 ms every 1,000 items:
///   the peak RSS growth on NIO (bound: < 64 MiB) and what URLSession does.
struct StreamBenchmarks {
    let server: FixtureServer

    /// Every part, or the one `NK_BENCH_STREAMS` names (`parser`, `throughput`, `latency`, `memory`).
    func run() async throws {
        let part = ProcessInfo.processInfo.environment["NK_BENCH_STREAMS"]
        if part == nil || part == "parser" { try await StreamParserBenchmarks.run() }
        if part == nil || part == "throughput" { try await throughput() }
        if part == nil || part == "latency" { try await latency() }
        if part == nil || part == "memory" { try await slowConsumer() }
    }

    // MARK: Throughput

    private func throughput() async throws {
        let count = 200_000
        let url = server.url("/events/many?count=\(count)")
        var rounds: [[Double]] = []
        for _ in 0..<5 {
            let transport = NIOTransport()
            let service = Service(configuration: ServiceConfiguration(),
                                  transport: transport)
            let bare = BareAsyncHTTPClient(sharing: transport.client)
            // Warm: open the connection.
            _ = try await kitEvents(service, url: server.url("/events/many?count=100"))
            var round = [0.0, 0.0]
            for order in [[0, 1], [1, 0]] {
                for side in order {
                    let start = ContinuousClock.now
                    let seen = side == 0 ? try await kitEvents(service, url: url) : try await bareLines(bare.client, url: url)
                    guard seen == count else { throw BenchError.wrongAnswer }
                    round[side] += start.duration(to: .now).milliseconds / 1000
                }
            }
            rounds.append(round)
        }
        let kit = median(rounds.map { $0[0] }), bare = median(rounds.map { $0[1] })
        let ratios = rounds.map { $0[0] / $0[1] }
        print(String(format: "SSE end to end, %d events over NIO: NetworkKit %.0f events/s, bare AsyncHTTPClient "
                     + "splitting lines %.0f events/s; ratio %.2f (rounds %.2f to %.2f; bound 1.15)",
                     count, Double(2 * count) / kit, Double(2 * count) / bare, kit / bare,
                     ratios.min() ?? 0, ratios.max() ?? 0))
    }

    private func kitEvents(_ service: Service, url: String) async throws -> Int {
        let request = StreamRequest(events: RequestTarget(absolute: url), reconnection: .never)
        var count = 0
        for try await _ in service.stream(request) { count += 1 }
        return count
    }

    /// The bare client: the body's buffers split into lines at LF, each line made a `String` (as
    /// code reading lines does), each `data:` line counted as an event.
    private func bareLines(_ client: HTTPClient, url: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await client.execute(request, timeout: .seconds(120))
        var carried: [UInt8] = []
        var events = 0
        for try await buffer in response.body {
            carried.append(contentsOf: buffer.readableBytesView)
            var start = 0
            while let end = carried[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: carried[start..<end], as: UTF8.self)
                if line.hasPrefix("data:") { events += 1 }
                start = end + 1
            }
            carried.removeFirst(start)
        }
        return events
    }

    // MARK: Latency

    private func latency() async throws {
        for transport in ["NIO", "URLSession"] {
            let configuration = ServiceConfiguration()
            let service = transport == "NIO" ? Service(configuration: configuration, transport: NIOTransport())
                                             : Service(configuration: configuration)
            let request = StreamRequest(events: RequestTarget(absolute: server.url("/events/clock?count=400&interval=5")),
                                        reconnection: .never)
            let delays = Protected<[Double]>([])
            request.addItemHandler { _, event in
                let now = DispatchTime.now().uptimeNanoseconds
                guard let written = UInt64(event.data), now >= written else { return }
                delays.withLock { $0.append(Double(now - written) / 1_000_000) }
            }
            _ = try await service.completion(of: request).get()
            let sorted = delays.snapshot.dropFirst(20).sorted()   // the first ones include the connect
            guard !sorted.isEmpty else { throw BenchError.wrongAnswer }
            print(String(format: "SSE latency on %@ (server write → item handler, %d events 5 ms apart): "
                         + "median %.2f ms, p99 %.2f ms", transport, sorted.count,
                         sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)]))
        }
    }

    // MARK: A slow consumer

    struct Line: Decodable, Sendable {
        var id: Int
        var name: String
    }

    private func slowConsumer() async throws {
        let megabytes = Int(ProcessInfo.processInfo.environment["NK_BENCH_STREAM_MB"] ?? "") ?? 1024
        // 1 ms every 100 items caps the consumer near 100,000 items a second, below the rate the
        // transport and parser deliver (about 150,000 a second here), so the consumer is the
        // bottleneck and the transport has to wait for it.
        let every = max(1, Int(ProcessInfo.processInfo.environment["NK_BENCH_SLOW_EVERY"] ?? "") ?? 100)
        for transport in ["NIO", "URLSession"] {
            let configuration = ServiceConfiguration()
            let service = transport == "NIO" ? Service(configuration: configuration, transport: NIOTransport())
                                             : Service(configuration: configuration)
            let parser = JSONLinesParser(ModelParser(Line.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")))
            let request = StreamRequest(RequestTarget(absolute: server.url("/jsonl/bytes?mb=\(megabytes)")), parser: parser)
            let before = ResidentMemory.current ?? 0
            ResidentMemory.resetPeak()
            let start = ContinuousClock.now
            var items = 0
            var outcome = "finished"
            do {
                for try await _ in service.stream(request) {
                    items += 1
                    if items % every == 0 { try await Task.sleep(for: .milliseconds(1)) }
                }
            } catch {
                outcome = "failed: \(error)"
            }
            let seconds = start.duration(to: .now).milliseconds / 1000
            let growth = Double((ResidentMemory.peak ?? 0) - before) / 1_048_576
            print(String(format: "%d MiB of JSON Lines into models, consumer sleeping 1 ms per %d items, on %@: "
                         + "%d items in %.1f s (%.0f items/s), %@; peak RSS growth %.1f MiB%@", megabytes, every, transport,
                         items, seconds, Double(items) / max(seconds, 0.001), outcome, growth,
                         transport == "NIO" ? " (bound 64)" : ""))
        }
    }
}
