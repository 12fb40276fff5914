import FixtureServer
import Foundation
import NetworkKit
import NetworkKitImage
import NetworkKitNIO

/// `NK_BENCH_ONLY=load`: the load and leak run of the hardening issue. `NK_LOAD_COUNT` mixed
/// requests (20,000 by default), 64 in flight, through each transport: JSON, models, images,
/// small downloads to disk, uploads, 500s, dropped connections, retries, slow answers, and one
/// request in ten cancelled at a random moment. It checks that every request's completion handler
/// ran exactly once and no progress handler ran after it, that the service holds no request at
/// the end, and that the client's resident memory grew by less than 10 MB from the warm-up (the
/// first tenth) to the end. The fixture server runs in a process of its own (`LoadServer`), so
/// the figure is the kit's; the server's growth is printed beside it. Exits 1 when a check fails.
struct LoadRun {
    let baseURL: URL
    let count: Int
    let inFlight = 64
    /// The most the client's memory may grow after the warm-up.
    static let growthLimit = 10 * 1024 * 1024

    /// What one run measured.
    struct Figures {
        var seconds = 0.0
        var outcomes: [String: Int] = [:]
        var missing = 0
        var calledTwice = 0
        var progressAfterCompletion = 0
        var leftInService = 0
        var warmRSS = 0
        var endRSS = 0
    }

    /// The item model behind `content/entrance` of `/json/feed`.
    struct FeedItem: Decodable, Sendable {
        var name: String
        var type: Int
    }

    /// Runs the mix through URLSession and through NIO (`NK_LOAD_TRANSPORT=urlsession|nio` for
    /// one), prints the figures, and exits 1 when a check failed.
    static func runAll() async throws {
        let environment = ProcessInfo.processInfo.environment
        let server = try LoadServer()
        defer { server.stop() }
        let load = LoadRun(baseURL: server.baseURL, count: Int(environment["NK_LOAD_COUNT"] ?? "") ?? 20_000)
        let only = environment["NK_LOAD_TRANSPORT"]
        var failed = false
        for name in ["urlsession", "nio"] where only == nil || only == name {
            let serverBefore = server.residentBytes
            let figures = try await load.run(transport: name == "nio" ? NIOTransport() : nil)
            let growth = figures.endRSS - figures.warmRSS
            let ok = figures.missing == 0 && figures.calledTwice == 0 && figures.progressAfterCompletion == 0
                && figures.leftInService == 0 && growth < growthLimit
            failed = failed || !ok
            let outcomes = figures.outcomes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print(String(format: "load %@: %d requests, %d in flight, %.0f req/s (%@); handlers missing %d, twice %d, "
                         + "progress after completion %d; left in the service %d; client RSS after warm-up %.1f MiB, "
                         + "at the end %.1f MiB (%+.2f MiB); server process %+.1f MiB: %@",
                         name, load.count, load.inFlight, Double(load.count) / figures.seconds, outcomes,
                         figures.missing, figures.calledTwice, figures.progressAfterCompletion, figures.leftInService,
                         mebibytes(figures.warmRSS), mebibytes(figures.endRSS), mebibytes(growth),
                         mebibytes(server.residentBytes - serverBefore), ok ? "OK" : "FAILED"))
        }
        if failed { exit(1) }
    }

    private static func mebibytes(_ bytes: Int) -> Double {
        Double(bytes) / 1_048_576
    }

    func run(transport: (any Transport)?) async throws -> Figures {
        var configuration = ServiceConfiguration(baseURL: baseURL, timeout: .seconds(10))
        configuration.interceptors = [RetryPolicy(maxRetries: 1)]
        let service = transport.map { Service(configuration: configuration, transport: $0) } ?? Service(configuration: configuration)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("nk-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let book = LoadBook(count: count)
        let next = Protected(0)
        let warmUp = count / 10
        let warmRSS = Protected(0)
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    while true {
                        let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                        guard index < count else { return }
                        await self.send(index, service: service, folder: folder, book: book)
                        if index == warmUp { warmRSS.withLock { $0 = ResidentMemory.current ?? 0 } }
                    }
                }
            }
        }
        var figures = Figures()
        figures.seconds = started.duration(to: .now).milliseconds / 1000
        // Handlers are queued on the main actor: let the last ones run before counting.
        await MainActor.run {}
        (figures.missing, figures.calledTwice, figures.progressAfterCompletion, figures.outcomes) = book.tally()
        figures.leftInService = service.activeRequestCount
        figures.warmRSS = warmRSS.withLock { $0 }
        figures.endRSS = ResidentMemory.current ?? 0
        return figures
    }

    /// Sends request `index` of the mix and waits for its completion handler.
    private func send(_ index: Int, service: Service, folder: URL, book: LoadBook) async {
        var random = SeededGenerator(seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let cancelAfter: Duration? = Int.random(in: 0..<10, using: &random) == 0
            ? .microseconds(Int.random(in: 0..<5_000, using: &random)) : nil
        let file = folder.appendingPathComponent("\(index).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let request = Self.request(index, file: file)
            request.addProgressHandler { book.progress(index) }
            request.addCompletionHandler { result in
                if book.complete(index, outcome: Self.outcome(result)) { continuation.resume() }
            }
            request.start(service)
            if let cancelAfter {
                Task {
                    try? await Task.sleep(for: cancelAfter)
                    request.cancel()
                }
            }
        }
    }

    /// The mix: 11 in 20 JSON, 2 models, then one each of image, download, upload, 500, dropped
    /// connection, retried failure and slow answer.
    private static func request(_ index: Int, file: URL) -> AnyLoadRequest {
        switch index % 20 {
        case 8, 9:
            let parser = ModelParser([FeedItem].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance"))
            return AnyLoadRequest(Request(path: "/json/feed", parser: parser))
        case 10: return AnyLoadRequest(Request(path: "/blob/load.png", parser: ImageParser()))
        case 11: return AnyLoadRequest(Request(path: "/files/load.bin?size=65536", downloadTo: .file(file)))
        case 12:
            let request = Request(path: "/echo", method: .post, parser: DataParser())
            request.body = .data(Data(repeating: UInt8(index % 251), count: 16 * 1024), contentType: "application/octet-stream")
            return AnyLoadRequest(request)
        case 13: return AnyLoadRequest(Request(path: "/status/500", parser: JSONParser()))
        case 14: return AnyLoadRequest(Request(path: "/drop", parser: JSONParser()))
        case 15: return AnyLoadRequest(Request(path: "/flaky/load-\(index)?failures=1", parser: JSONParser()))
        case 16: return AnyLoadRequest(Request(path: "/slow?ms=20", parser: JSONParser()))
        default: return AnyLoadRequest(Request(path: "/json/small", parser: JSONParser()))
        }
    }

    private static func outcome(_ result: Result<Void, NetworkError>) -> String {
        switch result {
        case .success: return "ok"
        case .failure(.cancelled): return "cancelled"
        case .failure(.httpStatus(let code, _, _)): return "HTTP \(code)"
        case .failure(.transport(let error)): return "transport \(error.code.rawValue)"
        case .failure(let error): return "\(error)".prefix(40).description
        }
    }
}

/// A request of any output type, as the load run needs it: handlers that see only whether it
/// succeeded, starting, cancelling.
struct AnyLoadRequest: Sendable {
    let addProgressHandler: @Sendable (@escaping @Sendable () -> Void) -> Void
    let addCompletionHandler: @Sendable (@escaping @Sendable (Result<Void, NetworkError>) -> Void) -> Void
    let start: @Sendable (Service) -> Void
    let cancel: @Sendable () -> Void

    init<Output: Sendable>(_ request: Request<Output>) {
        addProgressHandler = { handler in request.addProgressHandler { _, _ in handler() } }
        addCompletionHandler = { handler in request.addCompletionHandler { _, result in handler(result.map { _ in () }) } }
        start = { service in service.start(request) }
        cancel = { request.cancel() }
    }
}

/// Every request's handler calls and outcome, under one lock.
final class LoadBook: Sendable {
    private struct Entry {
        var completions = 0
        var lateProgress = 0
        var outcome = ""
    }

    private let entries: Protected<[Entry]>

    init(count: Int) {
        entries = Protected(Array(repeating: Entry(), count: count))
    }

    /// Records a completion; true the first time for `index`.
    func complete(_ index: Int, outcome: String) -> Bool {
        entries.withLock { entries in
            entries[index].completions += 1
            entries[index].outcome = outcome
            return entries[index].completions == 1
        }
    }

    /// Records a progress call, counting it when it came after the completion.
    func progress(_ index: Int) {
        entries.withLock { entries in
            if entries[index].completions > 0 { entries[index].lateProgress += 1 }
        }
    }

    /// Requests whose handler never ran, ran more than once, progress after completion, outcomes.
    func tally() -> (missing: Int, twice: Int, lateProgress: Int, outcomes: [String: Int]) {
        entries.withLock { entries in
            var outcomes: [String: Int] = [:]
            for entry in entries where entry.completions > 0 { outcomes[entry.outcome, default: 0] += 1 }
            return (entries.count { $0.completions == 0 }, entries.count { $0.completions > 1 },
                    entries.reduce(0) { $0 + $1.lateProgress }, outcomes)
        }
    }
}
