import Foundation
import Testing

/// Every ```swift block of the DocC articles must stand, word for word (leading and trailing
/// spaces and blank lines aside), as one contiguous run in one of this target's `*Samples.swift`
/// files, which CI compiles. So an article cannot show code that does not build against today's
/// API. A block that is not Swift to compile (a shell command) is marked ```sh instead.
@Suite struct ArticleSampleTests {
    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let catalogs = ["Sources/NetworkKit/NetworkKit.docc", "Sources/NetworkKitImage/NetworkKitImage.docc",
                           "Sources/NetworkKitTesting/NetworkKitTesting.docc"]
    static let samplesFolder = "Tests/DocumentationTests"

    /// The Markdown files of `catalog`, sorted.
    static func articles(in catalog: String) -> [URL] {
        let folder = root.appendingPathComponent(catalog)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".md") }.sorted().map { folder.appendingPathComponent($0) }
    }

    static var articles: [URL] {
        catalogs.flatMap(articles(in:))
    }

    /// Lines without surrounding spaces, blank ones left out.
    static func normalized(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// A fenced code block marked `swift`: where it starts (1-based line of the fence) and its text.
    struct Block {
        var line: Int
        var text: String
        var isClosed: Bool
    }

    /// The ```swift blocks of a Markdown text, in order. Fences may be indented (inside lists).
    static func swiftBlocks(in markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var inOtherBlock = false
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if trimmed == "```" {
                    block.isClosed = true
                    blocks.append(block)
                    current = nil
                } else {
                    block.text += (block.text.isEmpty ? "" : "\n") + line
                    current = block
                }
            } else if inOtherBlock {
                if trimmed == "```" { inOtherBlock = false }
            } else if trimmed.lowercased() == "```swift" {
                current = Block(line: index + 1, text: "", isClosed: false)
            } else if trimmed.hasPrefix("```") {
                inOtherBlock = true
            }
        }
        if let current { blocks.append(current) }
        return blocks
    }

    /// The normalized lines of each `*Samples.swift` file, by file name.
    static func samples() throws -> [(file: String, lines: [String])] {
        let folder = root.appendingPathComponent(samplesFolder)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix("Samples.swift") }.sorted()
        return try files.map { name in
            (name, normalized(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)))
        }
    }

    /// True when `lines` appear, in order and next to each other, in `haystack`.
    static func contains(_ haystack: [String], run lines: [String]) -> Bool {
        guard !lines.isEmpty, lines.count <= haystack.count else { return lines.isEmpty }
        return (0...(haystack.count - lines.count)).contains { start in
            haystack[start..<start + lines.count].elementsEqual(lines)
        }
    }

    @Test func bothCatalogsHaveArticlesWithSwiftCode() throws {
        for catalog in Self.catalogs {
            let articles = Self.articles(in: catalog)
            #expect(articles.count >= 2, "\(catalog): expected a landing page and articles, found \(articles.map(\.lastPathComponent))")
            let blocks = try articles.flatMap { Self.swiftBlocks(in: try String(contentsOf: $0, encoding: .utf8)) }
            #expect(!blocks.isEmpty, "\(catalog) has no ```swift block: is the catalog where this test looks?")
        }
        #expect(try !Self.samples().isEmpty, "no *Samples.swift file in \(Self.samplesFolder)")
    }

    /// The README's ```swift blocks, as the articles' are, with two allowances: a block of a
    /// package manifest's lines (its first line of code starts with `.`, as `.package(…)` does)
    /// is not Swift a test can compile, and `import` lines are left out of the comparison, since
    /// a sample file has its imports at its top.
    @Test func theREADMEsSwiftIsCompiledSampleCode() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let samples = try Self.samples()
        let blocks = Self.swiftBlocks(in: readme)
        #expect(blocks.count >= 2, "README.md has \(blocks.count) swift blocks: is this the README?")
        for block in blocks {
            let code = Self.normalized(block.text).filter { !$0.hasPrefix("//") }
            guard let first = code.first, !first.hasPrefix(".") else { continue }
            let lines = Self.normalized(block.text).filter { !$0.hasPrefix("import ") }
            let found = samples.contains { Self.contains($0.lines, run: lines) }
            #expect(found, """
                README.md, swift block at line \(block.line), is not, line for line, in any \(Self.samplesFolder)/*Samples.swift file:
                \(block.text)
                """)
        }
    }

    @Test(arguments: ArticleSampleTests.articles.map { $0.pathComponents.suffix(2).joined(separator: "/") })
    func everySwiftBlockIsCompiledSampleCode(_ article: String) throws {
        let url = try #require(Self.articles.first { $0.path.hasSuffix("/" + article) })
        let samples = try Self.samples()
        let blocks = Self.swiftBlocks(in: try String(contentsOf: url, encoding: .utf8))
        for (index, block) in blocks.enumerated() {
            let name = "\(article), swift block \(index + 1) of \(blocks.count) (line \(block.line))"
            #expect(block.isClosed, "\(name) has no closing ``` fence")
            let lines = Self.normalized(block.text)
            guard !lines.isEmpty else { continue }
            let found = samples.contains { Self.contains($0.lines, run: lines) }
            #expect(found, """
                \(name) is not, line for line, in any \(Self.samplesFolder)/*Samples.swift file. \
                Copy the block into a function there (or fix the article to match the compiled code); \
                mark a block that is not Swift to compile as ```sh.
                \(block.text)
                """)
        }
    }
}
