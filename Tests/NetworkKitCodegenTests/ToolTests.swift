import Foundation
import NetworkKitCodegen
import Testing

/// The tools the plugins run, run the same way: arguments in, a file or a compiler-style error out.
@Suite struct ToolTests {
    @Test func openAPIToolReportsABadDocumentAsABuildError() throws {
        guard let tool = Files.tool("nk-openapi-gen") else { return }
        let folder = try TemporaryFolder()
        let output = folder.url.appendingPathComponent("out.swift")
        let document = Files.fixture("bad-ref.yaml")
        let result = try run(tool, ["--input", document.path, "--output", output.path])
        #expect(result.status != 0)
        #expect(result.error.contains("\(document.path):14: error: unresolved $ref #/components/schemas/Pett"))
        #expect(result.error.contains("(at #/paths/~1pets/get/responses/200/content/application~1json/schema/items)"))
        #expect(!FileManager.default.fileExists(atPath: output.path), "no Swift is written for a bad document")
    }

    @Test func openAPIToolWritesTheGoldenFile() throws {
        guard let tool = Files.tool("nk-openapi-gen"), let golden = Files.text(Files.golden("Everything.swift")) else { return }
        let folder = try TemporaryFolder()
        let output = folder.url.appendingPathComponent("Everything.swift")
        let result = try run(tool, ["--input", Files.fixture("everything.yaml").path,
                                    "--config", Files.fixture("everything-config.yaml").path, "--output", output.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("warning: skipped cookie parameter"))
        #expect(try String(contentsOf: output, encoding: .utf8) == golden)
    }

    @Test func modelToolWritesNameDotSwift() throws {
        guard let tool = Files.tool("nk-model-gen"), let golden = Files.text(Files.golden("FeedEntrance.swift")) else { return }
        let folder = try TemporaryFolder()
        let result = try run(tool, ["--input", Files.fixture("samples/feed.json").path, "--name", "FeedEntrance",
                                    "--key-path", "content/entrance", "--access", "public", "--output", folder.url.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(try String(contentsOf: folder.url.appendingPathComponent("FeedEntrance.swift"), encoding: .utf8) == golden)

        let missing = try run(tool, ["--input", Files.fixture("samples/feed.json").path, "--name", "X",
                                     "--key-path", "content/nope", "--output", folder.url.path])
        #expect(missing.status != 0)
        #expect(missing.error.contains("feed.json:1: error: the key path content/nope has no key \"nope\" here"))
    }
}
