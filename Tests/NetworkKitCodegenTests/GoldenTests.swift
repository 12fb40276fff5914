import Foundation
import NetworkKitCodegen
import Testing

/// The generators' output for inputs that use every supported construct, against committed
/// golden files. The golden files are part of this target, so they also compile (and
/// `EverythingTests` runs them).
@Suite struct GoldenTests {
    @Test func everythingDocument() throws {
        guard let document = Files.text(Files.fixture("everything.yaml")),
              let configText = Files.text(Files.fixture("everything-config.yaml")) else { return }
        let config = try GeneratorConfig.parse(configText, file: "everything-config.yaml")
        let output = try OpenAPIGenerator.generate(document: document, fileName: "everything.yaml", config: config)
        Files.expectGolden(output.source, "Everything.swift")
        #expect(output.warnings.count == 1)
        #expect(output.warnings.first?.description.contains("everything.yaml:36: warning: skipped cookie parameter \"session\"") == true)
        #expect(output.warnings.first?.kind == .skippedParameter)
    }

    @Test func everythingIsDeterministic() throws {
        guard let document = Files.text(Files.fixture("everything.yaml")) else { return }
        let first = try OpenAPIGenerator.generate(document: document, fileName: "everything.yaml").source
        let second = try OpenAPIGenerator.generate(document: document, fileName: "everything.yaml").source
        #expect(first == second)
    }

    /// `Sources/FixtureAPI` is the plugin's output for `Examples/FixtureAPI` under a header of
    /// three comment lines (the package under Examples/ checks the plugin's own output against it).
    @Test func fixtureAPICopyIsWhatThePluginGenerates() throws {
        let root = Files.folder.deletingLastPathComponent().deletingLastPathComponent()
        let example = root.appendingPathComponent("Examples/FixtureAPI")
        let copy = root.appendingPathComponent("Sources/FixtureAPI/FixtureAPI.swift")
        let output = try OpenAPIGenerator.generate(input: example.appendingPathComponent("openapi.yaml"),
                                                   config: example.appendingPathComponent("networkkit-openapi.yaml"))
        guard let text = Files.text(copy) else { return }
        let header = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).prefix(3).joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["NK_UPDATE_GOLDEN"] == "1" {
            try (header + output.source).write(to: copy, atomically: true, encoding: .utf8)
            return
        }
        #expect(text == header + output.source,
                "Sources/FixtureAPI/FixtureAPI.swift is out of date: run NK_UPDATE_GOLDEN=1 swift test --filter Golden to rewrite it")
    }

    @Test func userSample() throws {
        guard let sample = Files.text(Files.fixture("samples/user.json")) else { return }
        Files.expectGolden(try ModelInference.generate(sample: sample, name: "SampleUser"), "SampleUser.swift")
    }

    @Test func feedSampleAtAKeyPath() throws {
        guard let sample = Files.text(Files.fixture("samples/feed.json")) else { return }
        let source = try ModelInference.generate(sample: sample, name: "FeedEntrance", keyPath: "content/entrance", access: "public")
        Files.expectGolden(source, "FeedEntrance.swift")
    }
}
