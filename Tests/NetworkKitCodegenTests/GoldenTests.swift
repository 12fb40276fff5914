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
        #expect(output.warnings.first?.contains("everything.yaml:36: warning: skipped cookie parameter \"session\"") == true)
    }

    @Test func everythingIsDeterministic() throws {
        guard let document = Files.text(Files.fixture("everything.yaml")) else { return }
        let first = try OpenAPIGenerator.generate(document: document, fileName: "everything.yaml").source
        let second = try OpenAPIGenerator.generate(document: document, fileName: "everything.yaml").source
        #expect(first == second)
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
