import FixtureServer
import Foundation
import Testing

/// `RotatingServer` against a real client, curl (with nghttp2): what it answers over HTTP/2 and
/// HTTP/1.1, and that its rotations (GOAWAY, refused and cancelled streams, HTTP/1.1 connections
/// closed after N requests) are what curl sees, while it counts every request it processed once.
@Suite("Rotating server with curl", .serialized)
struct RotatingServerTests {
    /// curl's exit status, standard output and standard error (`-v`'s trace).
    struct CurlRun {
        var status: Int32
        var output: String
        var trace: String
    }

    /// Thrown (failing the test with its message) when curl cannot be run.
    struct CurlMissing: Error, CustomStringConvertible {
        var description: String { "these tests need curl with HTTP/2 at \(RotatingServerTests.curlPath)" }
    }

    static let curlPath = "/usr/bin/curl"

    /// Runs `body` with fresh certificates and a server with `behaviour`; stops the server and
    /// removes the certificates afterwards, whether `body` throws or not.
    static func withServer(_ behaviour: RotatingServer.Behaviour,
                           _ body: (RotatingServer, TestCertificates) async throws -> Void) async throws {
        guard FileManager.default.isExecutableFile(atPath: curlPath) else { throw CurlMissing() }
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await RotatingServer.start(presenting: certificates.server, behaviour: behaviour)
        do {
            try await body(server, certificates)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Runs curl (no `.curlrc`, no proxy, trusting the test CA, verbose) with `arguments`, its
    /// output going to files (a pipe could fill up and block it).
    static func curl(_ arguments: [String], certificates: TestCertificates) async throws -> CurlRun {
        let directory = certificates.directory
        let outputFile = directory.appendingPathComponent("curl-\(UUID().uuidString).out")
        let traceFile = directory.appendingPathComponent("curl-\(UUID().uuidString).err")
        try Data().write(to: outputFile)
        try Data().write(to: traceFile)
        let output = try FileHandle(forWritingTo: outputFile)
        let trace = try FileHandle(forWritingTo: traceFile)
        defer {
            try? output.close()
            try? trace.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curlPath)
        process.arguments = ["-q", "-sS", "-v", "--noproxy", "*", "--max-time", "60",
                             "--cacert", certificates.ca.certificateFile.path] + arguments
        process.standardOutput = output
        process.standardError = trace
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try launch(process)   // one launch at a time: concurrent Process.run() crashes Foundation on Linux
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        return CurlRun(status: status, output: try String(contentsOf: outputFile, encoding: .utf8),
                       trace: try String(contentsOf: traceFile, encoding: .utf8))
    }

    /// `/rotate/hello?id=1` … `?id=count` on `server`.
    static func helloURLs(_ server: RotatingServer, count: Int) -> [String] {
        (1...count).map { server.url("/rotate/hello?id=\($0)") }
    }

    /// Every id from 1 to `count` processed exactly once.
    static func eachOnce(_ count: Int) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: (1...count).map { (String($0), 1) })
    }

    /// The ids of the `{"ok":true,"id":"N"}` bodies curl printed, in order.
    static func answeredIDs(_ output: String) -> [String] {
        output.components(separatedBy: #"{"ok":true,"id":""#).dropFirst().compactMap { $0.components(separatedBy: "\"").first }
    }

    @Test func answersItsRoutesOverBothProtocols() async throws {
        try await Self.withServer(.init()) { server, certificates in
            for (flag, version) in [("--http2", "2"), ("--http1.1", "1.1")] {
                let hello = try await Self.curl([flag, server.url("/rotate/hello?id=a%20b")], certificates: certificates)
                #expect(hello.status == 0, "\(hello.trace)")
                #expect(hello.output == #"{"ok":true,"id":"a b"}"#)
                #expect(hello.trace.contains("< x-http-version: \(version)"), "\(hello.trace)")
                #expect(hello.trace.contains("< content-type: application/json"), "\(hello.trace)")
                let echo = try await Self.curl([flag, "--data-binary", "bytes back", server.url("/rotate/echo?id=e")],
                                               certificates: certificates)
                #expect(echo.output == "bytes back", "\(echo.trace)")
                let missing = try await Self.curl([flag, "-o", "/dev/null", "-w", "%{http_code}", server.url("/nowhere")],
                                                  certificates: certificates)
                #expect(missing.output == "404", "\(missing.trace)")
            }
            let counts = server.counts
            #expect(counts.processed == 6)
            #expect(counts.processedIDs == ["a b": 2, "e": 2])
        }
    }

    @Test func goAwayAfterThreeStreamsOneRequestAtATime() async throws {
        try await Self.withServer(.init(goAwayAfterStreams: 3)) { server, certificates in
            let run = try await Self.curl(["--http2"] + Self.helloURLs(server, count: 10), certificates: certificates)
            #expect(run.status == 0, "\(run.trace)")
            #expect(Self.answeredIDs(run.output) == (1...10).map(String.init), "\(run.output)")
            let counts = server.counts
            #expect(counts.processed == 10)
            #expect(counts.processedIDs == Self.eachOnce(10))
            #expect(counts.goAways >= 3 && counts.connections >= 3, "\(counts)")
            #expect(run.trace.contains("< x-http-version: 2"))
        }
    }

    /// Ten parallel requests through a server that sends GOAWAY after its third stream on each
    /// connection: every request is answered and each was processed once. How curl spreads the ten
    /// over connections is its own choice (it may open several before it learns that the server
    /// multiplexes), so the test asserts what curl promises (every transfer succeeds) and the
    /// server's counts, not curl's trace. Uploading, streams above a GOAWAY carry DATA too.
    @Test(arguments: [false, true])
    func goAwayWithManyStreamsInFlightLosesNone(uploading: Bool) async throws {
        let behaviour = RotatingServer.Behaviour(goAwayAfterStreams: 3, answerDelay: .milliseconds(200))
        try await Self.withServer(behaviour) { server, certificates in
            let urls = (1...10).map { server.url(uploading ? "/rotate/echo?id=\($0)" : "/rotate/hello?id=\($0)") }
            let run = try await Self.curl(["--http2", "--parallel", "--parallel-max", "10"]
                                          + (uploading ? ["--data-binary", "sent"] : []) + urls,
                                          certificates: certificates)
            #expect(run.status == 0, "\(run.trace)")
            if uploading {
                #expect(run.output == String(repeating: "sent", count: 10), "\(run.output)")
            } else {
                #expect(Set(Self.answeredIDs(run.output)) == Set((1...10).map(String.init)), "\(run.output)")
            }
            let counts = server.counts
            #expect(counts.processed == 10, "\(counts)")
            #expect(counts.processedIDs == Self.eachOnce(10), "\(counts)")
        }
    }

    /// curl 7.88 retries a refused stream (on a reused connection it says only "Connection
    /// died, retrying a fresh connect") and fails a cancelled one (error 92, "CANCEL (err 8)").
    @Test func refusedAndCancelledStreamsReachCurl() async throws {
        try await Self.withServer(.init(refuseEvery: 3, cancelEvery: 4)) { server, certificates in
            let run = try await Self.curl(["--http2"] + Self.helloURLs(server, count: 10), certificates: certificates)
            let counts = server.counts
            #expect(counts.refused >= 1 && counts.cancelled >= 1, "\(counts)")
            #expect(run.trace.contains("retrying a fresh connect"), "\(run.trace)")
            #expect(run.trace.contains("was not closed cleanly: CANCEL (err 8)"), "\(run.trace)")
            // Each request was processed once, and every one not cancelled was answered.
            #expect(counts.processedIDs == Self.eachOnce(10), "\(counts)")
            #expect(counts.processed == 10)
            #expect(Self.answeredIDs(run.output).count == 10 - counts.cancelled, "\(run.output)")
        }
    }

    /// On a fresh connection curl names the reset; it gives up after five retries.
    @Test func refusingEveryStreamProcessesNothing() async throws {
        try await Self.withServer(.init(refuseEvery: 1)) { server, certificates in
            let run = try await Self.curl(["--http2", server.url("/rotate/hello?id=1")], certificates: certificates)
            #expect(run.status != 0)
            #expect(run.trace.contains("REFUSED_STREAM, retrying a fresh connect"), "\(run.trace)")
            let counts = server.counts
            #expect(counts.processed == 0 && counts.processedIDs.isEmpty, "\(counts)")
            #expect(counts.refused == counts.connections && counts.refused >= 2, "\(counts)")
        }
    }

    @Test func closesHTTP1ConnectionsAfterThreeRequestsWithoutSayingSo() async throws {
        try await Self.withServer(.init(closeHTTP1After: 3)) { server, certificates in
            let run = try await Self.curl(["--http1.1"] + Self.helloURLs(server, count: 10), certificates: certificates)
            #expect(run.status == 0, "\(run.trace)")
            #expect(Self.answeredIDs(run.output) == (1...10).map(String.init), "\(run.output)")
            #expect(!run.trace.lowercased().contains("< connection: close"), "\(run.trace)")
            #expect(run.trace.contains("< x-http-version: 1.1"))
            let counts = server.counts
            #expect(counts.processedIDs == Self.eachOnce(10), "\(counts)")
            #expect(counts.http1Closes == 3 && counts.connections >= 4, "\(counts)")
        }
    }
}
