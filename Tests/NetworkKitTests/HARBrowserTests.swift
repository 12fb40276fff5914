import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// HAR between the kit and a browser, both ways: Chromium, driven by Playwright
/// (`Peers/browser_har.py`), records its own session with the fixture server, which
/// `StubTransport(har:)` replays unchanged; and Chromium answers its requests from a HAR the kit
/// recorded, none reaching the network. `scripts/har-peer` (a CI stage after the test command)
/// installs Chromium and, in a virtual environment at `.build/peers/browser`, Playwright.
@Suite("HAR with a browser")
struct HARBrowserTests {
    static let python = PeerTools.executable(".build/peers/browser/bin/python")
    static let chromium: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        .map { "\($0)/chromium" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static let script = PeerTools.script("browser_har.py")

    /// Runs the browser script; its failure is a recorded issue with what it printed.
    static func browser(_ arguments: [String]) async throws -> String {
        let run = try await CommandLine_.run(try #require(python), [script.path] + arguments,
                                             environment: ["CHROMIUM": chromium])
        #expect(run.status == 0, "browser_har.py \(arguments.first ?? "") failed: \(run.errors)")
        return run.output
    }

    @Test(.enabled(if: python != nil && chromium != nil, "Chromium or Playwright is missing: run scripts/har-peer"))
    func aHARThatChromiumWroteReplays() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        try await HARTests.withHARFile { file in
            _ = try await Self.browser(["record", server.baseURL.absoluteString, file.path])
            let live = Service(configuration: HARTests.configuration(server.baseURL))
            let replayed = Service(configuration: HARTests.configuration(server.baseURL), transport: try StubTransport(har: file))
            let small = Request(path: "/json/small", parser: JSONParser())
            #expect(try await replayed.send(small) == live.send(Request(path: "/json/small", parser: JSONParser())))
            // The browser's entry holds the body decoded, its Content-Encoding header kept.
            let gzip = { Request(path: "/compressed/gzip", parameters: ["count": 3], parser: JSONParser()) }
            #expect(try await replayed.send(gzip()) == live.send(gzip()))
        }
    }

    @Test(.enabled(if: python != nil && chromium != nil, "Chromium or Playwright is missing: run scripts/har-peer"))
    func chromiumReplaysAHARTheKitWrote() async throws {
        let server = try await FixtureServer.start()
        let recorder = HARRecorder()
        let service = Service(configuration: HARTests.configuration(server.baseURL),
                              transport: RecordingTransport(wrapping: URLSessionTransport(), recorder: recorder))
        let small = try await service.send(Request(path: "/json/small", parser: StringParser()))
        let gzip = try await service.send(Request(path: "/compressed/gzip", parameters: ["count": 3], parser: StringParser()))
        await server.stopAndWait()   // the browser's answers can come from the file alone
        try await HARTests.withHARFile { file in
            try recorder.write(to: file)
            #expect(try await Self.browser(["replay", file.path, server.url("/json/small")]) == small)
            #expect(try await Self.browser(["replay", file.path, server.url("/compressed/gzip?count=3")]) == gzip)
        }
    }
}
