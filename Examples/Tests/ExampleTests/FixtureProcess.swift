import Foundation
import Testing

/// NetworkKit's fixture server in a process of its own (`nk demo --serve`, which `scripts/test`
/// builds in the package above), for running generated requests against it. The process ends
/// when the test's body does.
enum FixtureProcess {
    /// Runs `body` with the base URL of a running fixture server; records an issue naming what
    /// is missing, and does not run `body`, when `nk` is not built or the server does not start.
    static func withServer(_ body: (URL) async throws -> Void) async throws {
        // NetworkKit's root: the first folder above this file with Sources/nk in it.
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Sources/nk").path), root.pathComponents.count > 1 {
            root.deleteLastPathComponent()
        }
        let tool = ["debug", "release"].map { root.appendingPathComponent(".build/\($0)/nk") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        guard let tool else {
            Issue.record("no nk at \(root.path)/.build/debug/nk: build NetworkKit first (swift build --product nk in \(root.path))")
            return
        }
        let process = Process()
        process.executableURL = tool
        process.arguments = ["demo", "--serve"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        // The first line: "Fixture server on http://127.0.0.1:PORT/ (Ctrl-C stops it)".
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            line += byte
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard let address = words.first(where: { $0.hasPrefix("http://") }), let url = URL(string: String(address)) else {
            Issue.record("nk demo --serve printed no address: \(String(decoding: line, as: UTF8.self))")
            return
        }
        try await body(url)
    }
}
