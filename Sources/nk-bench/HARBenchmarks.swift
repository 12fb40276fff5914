import FixtureServer
import Foundation
import NetworkKit
import NetworkKitTesting

/// Replaying a recorded session in a test (`NK_BENCH_ONLY=har`):
/// - loading a HAR of 10,000 entries (a JSON body of about 200 bytes each) into
///   `StubTransport(har:)`: the time, and the peak RSS growth while loading;
/// - replaying 10,000 requests (each entry once, in order) through a service on that stub,
///   against the same requests through a stub with one route that answers them all (the stub's
///   and the pipeline's own cost): requests per second and the ratio, five interleaved rounds;
/// - recording 10,000 requests through a `RecordingTransport` around that one-route stub, against
///   the stub alone: what recording adds to each request's way (`NK_BENCH_HAR=record` runs this
///   part alone).
struct HARBenchmarks {
    let entries = 10_000
    let rounds = 5

    func run() async throws {
        if ProcessInfo.processInfo.environment["NK_BENCH_HAR"] != "record" { try await replay() }
        try await record()
    }

    /// Requests through a recording transport against the same requests through its base.
    private func record() async throws {
        let base = StubTransport()
        base.answer(.get, .pathPrefix("/items/"), with: .json(Self.body(0)))
        let recorder = HARRecorder()
        let configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        let recording = Service(configuration: configuration, transport: RecordingTransport(wrapping: base, recorder: recorder))
        let bare = Service(configuration: configuration, transport: base)
        let (median, ratios) = try await compare(recording, against: bare)
        print(String(format: "record x%d: %.0f requests/s, the stub alone %.0f requests/s; ratio %.2f (rounds %.2f to %.2f); %d entries",
                     entries, Double(entries) / median[0], Double(entries) / median[1], median[0] / median[1],
                     ratios.first ?? 0, ratios.last ?? 0, recorder.count))
    }

    private func replay() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-bench-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(Self.har(entries: entries).utf8).write(to: file)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        print("HAR replay (\(entries) entries, \(size / 1_024) KiB; ratios: replay / one-route stub, lower is better)")

        guard ResidentMemory.resetPeak(), let before = ResidentMemory.current else {
            print("loading: cannot read this process's peak memory (/proc/self)")
            return
        }
        let started = ContinuousClock.now
        let replay = try StubTransport(har: file)
        let loading = WebSocketBenchmarks.seconds(started.duration(to: .now))
        let growth = Double((ResidentMemory.peak ?? before) - before) / 1_048_576
        print(String(format: "loading: %.0f ms, peak RSS growth %.1f MiB", loading * 1_000, growth))

        let single = StubTransport()
        single.answer(.get, .pathPrefix("/items/"), with: .json(Self.body(0)))
        let configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        let replayed = Service(configuration: configuration, transport: replay)
        let baseline = Service(configuration: configuration, transport: single)
        let (median, ratios) = try await compare(replayed, against: baseline)
        print(String(format: "replay x%d: %.0f requests/s, one-route stub %.0f requests/s; ratio %.2f (rounds %.2f to %.2f)",
                     entries, Double(entries) / median[0], Double(entries) / median[1], median[0] / median[1],
                     ratios.first ?? 0, ratios.last ?? 0))
    }

    /// `entries` GETs of `/items/N` through `subject`, against the same through `baseline`, in
    /// interleaved rounds: the median round's seconds (the subject's first) and every round's
    /// ratio, sorted.
    private func compare(_ subject: Service, against baseline: Service) async throws -> (median: [Double], ratios: [Double]) {
        let entries = self.entries
        let clients: [(Int, Int) async throws -> Double] = [subject, baseline].map { service in
            let next = Protected(0)
            return { count, _ in
                try await WebSocketBenchmarks.timed {
                    for _ in 0..<count {
                        let item = next.withLock { next in defer { next += 1 }; return next % entries }
                        let json = try await service.send(Request(path: "/items/\(item)", parser: JSONParser()))
                        guard json["code"] == 0 else { throw HARBenchError.wrongAnswer }
                    }
                }
            }
        }
        var results: [[Double]] = []
        for _ in 0..<rounds { results.append(try await interleavedRound(count: entries, inFlight: 1, clients)) }
        return (medianRound(results), results.map { $0[0] / $0[1] }.sorted())
    }

    static func body(_ item: Int) -> String {
        #"{"code": 0, "content": {"id": \#(item), "name": "item \#(item)", "tags": ["a", "b", "c"], "price": 12.5, "stock": 40, "description": "a small JSON answer of the size an API returns for one item"}}"#
    }

    /// A HAR of `entries` GETs of `/items/N`, each answered with `body(N)`.
    static func har(entries: Int) -> String {
        let items = (0..<entries).map { item in
            let text = body(item).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return #"""
            {"startedDateTime": "2026-11-30T10:00:00.000Z", "time": 1, "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0},
             "request": {"method": "GET", "url": "https://api.example.com/items/\#(item)", "httpVersion": "HTTP/1.1", "cookies": [],
                         "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                          "headers": [{"name": "Content-Type", "value": "application/json"}],
                          "content": {"size": \#(text.utf8.count), "mimeType": "application/json", "text": "\#(text)"},
                          "redirectURL": "", "headersSize": -1, "bodySize": \#(text.utf8.count)}}
            """#
        }
        return #"{"log": {"version": "1.2", "creator": {"name": "nk-bench", "version": "1"}, "entries": ["# + items.joined(separator: ",\n") + "]}}"
    }
}

enum HARBenchError: Error {
    case wrongAnswer
}
