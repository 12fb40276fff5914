import FixtureServer
import Foundation
import Testing

/// The fuzz targets' committed corpora (seeds, and every input that once crashed a target),
/// replayed through the same code the fuzzer runs: the targets' ordinary builds are replayers.
@Suite("Fuzz corpora replay")
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("every committed input runs through its target without a crash or a broken invariant",
          arguments: ["fuzz-json", "fuzz-inflate", "fuzz-brotli", "fuzz-zstd", "fuzz-multipart", "fuzz-downloads", "fuzz-images", "fuzz-streams"])
    func replay(target: String) async throws {
        let corpus = Self.root.appendingPathComponent("Fuzz/Corpus/\(target)")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).count
        let (found, searched) = builtExecutable(target, packageRoot: Self.root)
        guard let replayer = found else {
            Issue.record("\(target) was not built (looked in \(searched.map(\.path))): run swift build first")
            return
        }
        // Waited for on a thread of its own: the replay takes seconds, which would hold a thread
        // of the small cooperative pool that the in-process servers of other tests need.
        let output = try await toolOutput([replayer.path, corpus.path])
        #expect(output.contains("replayed \(inputs) inputs"), "\(output)")
    }
}
