import Foundation
import Testing

/// Every ```swift block of the DocC articles must stand, word for word (leading and trailing
/// spaces and blank lines aside), in the sample files of this target, which CI compiles. So an
/// article cannot show code that does not build against today's API.
@Suite struct ArticleSampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalogs = ["Sources/NetworkKit/NetworkKit.docc", "Sources/NetworkKitImage/NetworkKitImage.docc"]

    static var articles: [URL] {
        catalogs.flatMap { catalog -> [URL] in
            let folder = root.appendingPathComponent(catalog)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".md") }.sorted().map { folder.appendingPathComponent($0) }
        }
    }

    /// Lines without surrounding spaces, blank ones left out.
    static func normalized(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The ```swift blocks of a Markdown text, in order.
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append((current ?? []).joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    static var samples: [String] {
        get throws {
            let folder = root.appendingPathComponent("Tests/DocumentationTests")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix("Samples.swift") }.sorted()
            return try files.flatMap { normalized(try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) }
        }
    }

    @Test func thereAreArticlesWithCode() throws {
        #expect(Self.articles.count >= 9, "articles found: \(Self.articles.map(\.lastPathComponent))")
        let blocks = try Self.articles.flatMap { Self.swiftBlocks(in: try String(contentsOf: $0, encoding: .utf8)) }
        #expect(blocks.count >= 15)
    }

    @Test(arguments: ArticleSampleTests.articles.map(\.lastPathComponent))
    func everySwiftBlockIsCompiledSampleCode(_ article: String) throws {
        let url = try #require(Self.articles.first { $0.lastPathComponent == article })
        let samples = try Self.samples
        for (index, block) in Self.swiftBlocks(in: try String(contentsOf: url, encoding: .utf8)).enumerated() {
            let lines = Self.normalized(block)
            guard !lines.isEmpty else { continue }
            let found = samples.indices.contains { start in
                start + lines.count <= samples.count && Array(samples[start..<start + lines.count]) == lines
            }
            #expect(found, "\(article), swift block \(index + 1) is not in Tests/DocumentationTests/*Samples.swift:\n\(block)")
        }
    }
}
