import FixtureServer
import Foundation
import Testing

/// Files of this test target, and the tools SwiftPM built next to it.
enum Files {
    /// This folder.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    /// `Fixtures/NAME`.
    static func fixture(_ name: String) -> URL { folder.appendingPathComponent("Fixtures/" + name) }
    /// `Golden/NAME`.
    static func golden(_ name: String) -> URL { folder.appendingPathComponent("Golden/" + name) }

    /// The text of `url`, or a recorded failure naming it.
    static func text(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            Issue.record("cannot read \(url.path): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Compares `generated` with the golden file `name`; with `NK_UPDATE_GOLDEN=1` in the
    /// environment, rewrites the golden file instead (build and test again to compile it).
    static func expectGolden(_ generated: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let url = golden(name)
        if ProcessInfo.processInfo.environment["NK_UPDATE_GOLDEN"] == "1" {
            do {
                try generated.write(to: url, atomically: true, encoding: .utf8)
            } catch {
                Issue.record("cannot write \(url.path): \(error)", sourceLocation: sourceLocation)
            }
            return
        }
        guard let expected = text(url, sourceLocation: sourceLocation) else { return }
        if generated != expected {
            let generatedLines = generated.split(separator: "\n", omittingEmptySubsequences: false)
            let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(generatedLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }
            let where_ = first.map { "line \($0.offset + 1): generated \"\($0.element.0)\", golden \"\($0.element.1)\"" }
                ?? "the files differ in length (\(generatedLines.count) vs \(expectedLines.count) lines)"
            Issue.record("Golden/\(name) is out of date at \(where_). Run NK_UPDATE_GOLDEN=1 swift test --filter Golden to rewrite it.",
                         sourceLocation: sourceLocation)
        }
    }

    /// A tool SwiftPM built (`nk-openapi-gen`, `nk-model-gen`): next to the test bundle, else in
    /// the package's `.build/debug`.
    static func tool(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL? {
        let root = folder.deletingLastPathComponent().deletingLastPathComponent()
        let (found, searched) = builtExecutable(name, packageRoot: root)
        if found == nil {
            Issue.record("\(name) was not built (looked in \(searched.map(\.path))): run swift build first", sourceLocation: sourceLocation)
        }
        return found
    }
}

/// A temporary folder removed when the test is done with it.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nk-codegen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `tool` with `arguments` and returns its exit status and what it printed.
func run(_ tool: URL, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = tool
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try launch(process)
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
}
