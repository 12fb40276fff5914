import FixtureServer
import Foundation
import NetworkKit
import Testing
@testable import NetworkKitImage

/// Adam7 PNG passes and the top rows of WebP files, only when asked for; and every image
/// fixture of the codec tests, split at random, giving the whole-body decode as its final image.
@Suite("Interlaced and partial image streams")
struct InterlacedAndPartialStreamTests {
    typealias Feed = ImageStreamFeeding

    @Test func adam7PassesGivePreviewsWhenAsked() throws {
        let data = FixtureImages.interlacedPNG
        let chunks = Feed.pieces(data.count, size: 2048)
        let plain = try Feed.items(IncrementalImageParser(), data, chunks: chunks, mimeType: "image/png")
        #expect(plain.count == 1, "previews of a PNG that were not asked for")
        let parser = IncrementalImageParser(previews: ImagePreviewPolicy(sources: .interlacedPasses, maxPixelSize: 100))
        let items = try Feed.items(parser, data, chunks: chunks, mimeType: "image/png")
        let previews = items.dropLast()
        #expect(previews.count >= 3)
        var last = 0
        for preview in previews {
            guard case .pass(let pass) = preview.stage else { Issue.record("stage \(preview.stage)"); continue }
            #expect(pass > last && pass < 7)
            last = pass
            #expect(preview.image.width == 100 && preview.image.sourceWidth == 320)
            #expect(preview.image.pixels.allSatisfy { $0 == 0 } == false)
        }
        let expected = try Feed.wholeBody(data, mimeType: "image/png")
        #expect(items.last.map { Feed.difference($0.image, expected) } == .some(nil))
    }

    @Test func anInterlacedPNGOverThePixelLimitFailsAtItsHeader() throws {
        var parser = IncrementalImageParser(pixelLimit: 1000, previews: ImagePreviewPolicy(sources: .interlacedPasses))
        try parser.begin(Feed.head("image/png"))
        let error = #expect(throws: ParseError.self) { try parser.parse(FixtureImages.interlacedPNG.prefix(100)) }
        #expect(error?.kind == .limit)
    }

    @Test(arguments: ["photo.webp", "lossless.webp"])
    func webpRowsGivePreviewsWhenAsked(file: String) throws {
        let data = try StreamImageFixtures.data(file)
        let chunks = Feed.pieces(data.count, size: max(64, data.count / 8))
        #expect(try Feed.items(IncrementalImageParser(), data, chunks: chunks, mimeType: "image/webp").count == 1)
        let parser = IncrementalImageParser(previews: ImagePreviewPolicy(sources: .partialRows))
        let items = try Feed.items(parser, data, chunks: chunks, mimeType: "image/webp")
        #expect(items.count >= 3)
        var last = 0
        for item in items.dropLast() {
            guard case .rows(let rows) = item.stage else { Issue.record("stage \(item.stage)"); continue }
            #expect(rows > last && rows < 240)
            last = rows
        }
        let expected = try Feed.wholeBody(data, mimeType: "image/webp")
        #expect(items.last.map { Feed.difference($0.image, expected) } == .some(nil))
    }

    @Test func everyCodecFixtureGivesTheWholeBodyDecodeHoweverSplit() throws {
        for fixture in try Fixtures.all {
            let data = try Fixtures.data(fixture.file)
            let expected = try Feed.wholeBody(data, parser: ImageParser(maxPixelSize: fixture.maxPixelSize), mimeType: fixture.mime)
            for seed in 1...3 as ClosedRange<UInt64> {
                let parser = IncrementalImageParser(maxPixelSize: fixture.maxPixelSize, previews: ImagePreviewPolicy(sources: .all))
                let chunks = Feed.randomPieces(data.count, seed: seed).flatMap { range in
                    range.count > 64 ? [range.lowerBound..<range.lowerBound + 64, range.lowerBound + 64..<range.upperBound] : [range]
                }
                let items = try Feed.items(parser, data, chunks: chunks, mimeType: fixture.mime)
                #expect(items.last.map { Feed.difference($0.image, expected) } == .some(nil), "\(fixture.name), seed \(seed)")
            }
        }
    }

    @Test(arguments: StreamImageFixtures.names)
    func streamFixturesGiveTheWholeBodyDecodeWithEveryPreview(name: String) throws {
        let data = try StreamImageFixtures.data(name)
        let mimeType = Feed.mimeType(name)
        let expected = try Feed.wholeBody(data, mimeType: mimeType)
        let parser = IncrementalImageParser(previews: ImagePreviewPolicy(sources: .all))
        let items = try Feed.items(parser, data, chunks: Feed.randomPieces(data.count, seed: 7), mimeType: mimeType)
        #expect(items.last.map { Feed.difference($0.image, expected) } == .some(nil))
    }
}
