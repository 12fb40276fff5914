import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `NK_BENCH_ONLY=h2spread`: 256 GETs in flight over TLS to a server allowing 8 streams per
/// connection: the kit with its requests spread over up to `NK_H2_CONNECTIONS` connections (8 by
/// default) against a bare AsyncHTTPClient on its one connection, and the kit on one connection
/// beside them; then h2load, nghttp2's own load tool, on one connection and on as many as the kit
/// opens, as the machine's reference. Two servers: nghttpd (Debian's nghttp2-server, `-m 8`),
/// which answers at once, and the fixture's `RotatingServer`, which answers after
/// `NK_H2_DELAY_MS` (10 by default). Each client warms up first (the kit learns the server's
/// stream limit then), then alternating rounds (`NK_H2_ROUNDS`, 5) of `NK_H2_REQUESTS` (4,096);
/// the round with the median ratio.
enum HTTP2SpreadBenchmarks {
    static let inFlight = 256

    static func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let connections = Int(environment["NK_H2_CONNECTIONS"] ?? "") ?? 8
        let count = Int(environment["NK_H2_REQUESTS"] ?? "") ?? 4_096
        let rounds = Int(environment["NK_H2_ROUNDS"] ?? "") ?? 5
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let trust = TrustSettings(roots: .custom([.file(certificates.ca.certificateFile)]))
        let comparison = Comparison(trust: trust, connections: connections, count: count, rounds: rounds)

        let documents = FileManager.default.temporaryDirectory.appendingPathComponent("nk-h2spread-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: documents) }
        try Data(#"{"ok":true,"id":"bench"}"#.utf8).write(to: documents.appendingPathComponent("hello"))
        let nghttpd = try await Nghttpd.start(documents: documents, identity: certificates.server, streamLimit: 8)
        defer { nghttpd.stop() }
        try await comparison.run(url: "https://127.0.0.1:\(nghttpd.port)/hello", server: "nghttpd -m 8, answering at once")

        // The case the spread is for: answers that take time (a backend behind the server), where
        // one connection's 8 streams, not the machine, bound the requests per second.
        let delay = Int(environment["NK_H2_DELAY_MS"] ?? "") ?? 10
        let behaviour = RotatingServer.Behaviour(answerDelay: .milliseconds(delay), maxConcurrentStreams: 8)
        let fixture = try await RotatingServer.start(presenting: certificates.server, behaviour: behaviour)
        do {
            try await comparison.run(url: fixture.url("/rotate/hello?id=bench"),
                                     server: "the fixture's RotatingServer, 8 streams, answering after \(delay) ms")
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    /// The kit spread, a bare AsyncHTTPClient and the kit on one connection, against one server,
    /// then h2load.
    struct Comparison {
        let trust: TrustSettings
        let connections: Int
        let count: Int
        let rounds: Int

        func run(url: String, server: String) async throws {
            let spread = try NIOTransport(connection: ConnectionSettings(trust: trust), http2ConnectionsPerHost: connections)
            let single = try NIOTransport(connection: ConnectionSettings(trust: trust))
            let bareTransport = try NIOTransport(connection: ConnectionSettings(trust: trust))
            let bare = BareAsyncHTTPClient(sharing: bareTransport.client)
            let spreadService = Service(configuration: ServiceConfiguration(), transport: spread)
            let singleService = Service(configuration: ServiceConfiguration(), transport: single)
            let clients: [(Int, Int) async throws -> Double] = [
                { try await HTTP2SpreadBenchmarks.batch(spreadService, url: url, count: $0, inFlight: $1) },
                { count, inFlight in try await timed(count: count, inFlight: inFlight) { try await bare.hello(url) } },
                { try await HTTP2SpreadBenchmarks.batch(singleService, url: url, count: $0, inFlight: $1) },
            ]
            for (index, client) in clients.enumerated() {
                do { _ = try await client(1_024, inFlight) } catch { throw Failure(client: index, error: error) }
            }
            var results: [[Double]] = []
            for _ in 0..<rounds {
                results.append(try await interleavedRound(count: count, inFlight: inFlight, clients))
            }
            let median = medianRound(results)
            let ratios = results.map { $0[0] / $0[1] }
            print("h2spread: \(server); \(count) GETs, \(inFlight) in flight, \(rounds) rounds")
            print(String(format: "h2spread:   kit on up to %d connections / bare AsyncHTTPClient (one): %.2f (rounds %.2f to %.2f); "
                         + "%.0f req/s against %.0f; kit on one connection %.0f req/s",
                         connections, median[0] / median[1], ratios.min() ?? 0, ratios.max() ?? 0,
                         Double(count) / median[0], Double(count) / median[1], Double(count) / median[2]))
            for clientsOfH2load in [1, connections] {
                let perSecond = try await HTTP2SpreadBenchmarks.h2load(url, requests: count, connections: clientsOfH2load)
                print(String(format: "h2spread:   h2load -c %d -m %d: %.0f req/s; kit spread / h2load time: %.2f",
                             clientsOfH2load, inFlight / clientsOfH2load, perSecond, perSecond * median[0] / Double(count)))
            }
        }
    }

    /// A client of the comparison failed (0: the kit spread, 1: bare, 2: the kit on one connection).
    struct Failure: Error {
        let client: Int
        let error: any Error
    }

    private static func batch(_ service: Service, url: String, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) {
            let json = try await service.send(Request(url: url, parser: JSONParser()))
            guard json["ok"] == true else { throw BenchError.wrongAnswer }
        }
    }

    /// h2load's requests per second for `requests` GETs of `url` on `connections` connections,
    /// the in-flight requests shared among them.
    private static func h2load(_ url: String, requests: Int, connections: Int) async throws -> Double {
        let output = try await Nghttpd.run("h2load", ["-n", "\(requests)", "-c", "\(connections)",
                                                      "-m", "\(inFlight / connections)", url])
        // "finished in 312.45ms, 13108.53 req/s, 2.23MB/s"
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
              let field = line.split(separator: ",").dropFirst().first,
              let perSecond = Double(field.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") else {
            throw BenchError.wrongAnswer
        }
        return perSecond
    }
}

/// nghttpd serving a directory over TLS on 127.0.0.1, in a process of its own.
struct Nghttpd {
    let port: Int
    let process: Process

    /// Starts nghttpd on a free port, presenting `identity`, allowing `streamLimit` streams per
    /// connection, and returns once it accepts connections.
    static func start(documents: URL, identity: TestIdentity, streamLimit: Int) async throws -> Nghttpd {
        for _ in 0..<20 {
            let port = Int.random(in: 20_000..<60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["nghttpd", "-d", documents.path, "-m", "\(streamLimit)", "--address=127.0.0.1",
                                 "\(port)", identity.keyFile.path, identity.certificateFile.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<100 where process.isRunning {
                if (try? await run("curl", ["-sk", "--http2", "-o", "/dev/null", "https://127.0.0.1:\(port)/"])) != nil {
                    return Nghttpd(port: port, process: process)
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(process.processIdentifier, SIGKILL)
        }
        throw BenchError.wrongAnswer
    }

    /// Stops the server. SIGKILL: nghttpd started by Foundation's `Process` ignores SIGTERM and
    /// SIGINT (it inherits their blocking).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Runs `tool` with `arguments`; its standard output, or an error when it fails.
    static func run(_ tool: String, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError.wrongAnswer }
        return String(decoding: data, as: UTF8.self)
    }
}
