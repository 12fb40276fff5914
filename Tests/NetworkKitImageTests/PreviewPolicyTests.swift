import Foundation
import NetworkKit
import Testing
@testable import NetworkKitImage

/// Which previews come and how often: the cadences (with a clock moved by hand, never a sleep),
/// sources that are off by default, and codecs that decode only at the end.
@Suite("Image preview policy")
struct PreviewPolicyTests {
    typealias Feed = ImageStreamFeeding

    private func previews(_ policy: ImagePreviewPolicy, file: String = "progressive.jpg", size: Int = 512,
                          beforeEachChunk: () -> Void = {}) throws -> [ImageStreamItem] {
        let data = try StreamImageFixtures.data(file)
        var parser = IncrementalImageParser(previews: policy)
        try parser.begin(Feed.head("image/jpeg"))
        var items: [ImageStreamItem] = []
        for chunk in Feed.pieces(data.count, size: size) {
            beforeEachChunk()
            items += try parser.parse(data.subdata(in: chunk))
        }
        let final = try parser.finish()
        #expect(final.count == 1 && final.first?.isFinal == true)
        return items
    }

    @Test func everyStageFirstOnlyAndNever() throws {
        let every = try previews(ImagePreviewPolicy())
        #expect(every.count >= 3)
        let first = try previews(ImagePreviewPolicy(cadence: .firstOnly))
        #expect(first.count == 1)
        #expect(first.first?.stage == every.first?.stage)
        #expect(try previews(ImagePreviewPolicy(cadence: .never)).isEmpty)
        #expect(try previews(.none).isEmpty)
    }

    @Test func atMostOncePerIntervalByTheGivenClock() throws {
        let every = try previews(ImagePreviewPolicy())
        let clock = ManualClock()
        let policy = ImagePreviewPolicy(cadence: .atMostOncePer(.milliseconds(100)), clock: clock)
        // The clock stands still: the first preview only.
        #expect(try previews(policy).count == 1)
        // 100 ms pass before each chunk: every stage is due.
        let spaced = try previews(policy) { clock.advance(by: .milliseconds(100)) }
        #expect(spaced.map(\.stage) == every.map(\.stage))
        // 10 ms before each chunk: fewer previews than stages, the first among them.
        let sparse = try previews(policy, size: 256) { clock.advance(by: .milliseconds(10)) }
        #expect(sparse.count >= 1 && sparse.count < every.count)
        #expect(sparse.first?.stage == every.first?.stage)
    }

    @Test func previewsFitTheirSizeAndNeverExceedTheFinalImage() throws {
        for (policySize, imageSize, expected) in [(64, nil, 64), (256, 100, 100), (nil, nil, 320)] as [(Int?, Int?, Int)] {
            let data = try StreamImageFixtures.data("progressive.jpg")
            let parser = IncrementalImageParser(maxPixelSize: imageSize, previews: ImagePreviewPolicy(maxPixelSize: policySize))
            let items = try Feed.items(parser, data, chunks: Feed.pieces(data.count, size: 1024))
            for preview in items.dropLast() {
                #expect(max(preview.image.width, preview.image.height) == expected)
            }
        }
    }

    @Test func partialRowsOfABaselineFileOnlyWhenAsked() throws {
        #expect(try previews(ImagePreviewPolicy(), file: "baseline.jpg").isEmpty)
        let rows = try previews(ImagePreviewPolicy(sources: .partialRows), file: "baseline.jpg", size: 1024)
        #expect(rows.count >= 2)
        var last = 0
        for item in rows {
            guard case .rows(let count) = item.stage else { Issue.record("stage \(item.stage)"); continue }
            #expect(count > last && count < 240)
            last = count
            // Rows below those decoded are transparent.
            let image = item.image
            let bottom = image.pixels[(image.height - 1) * image.bytesPerRow..<image.height * image.bytesPerRow]
            #expect(bottom.allSatisfy { $0 == 0 })
        }
    }

    @Test func aCodecThatIsNotIncrementalGivesTheFinalImageOnly() throws {
        struct WholeJPEG: ImageCodec {
            var format: ImageFormat { "whole-jpeg" }
            func canDecode(_ data: Data) -> Bool { JPEGCodec().canDecode(data) }
            func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
                try JPEGCodec().decode(data, options: options)
            }
        }
        let registry = ImageCodecRegistry(includingDefaults: false)
        registry.register(WholeJPEG(), forMIMETypes: ["image/jpeg"])
        let data = try StreamImageFixtures.data("progressive.jpg")
        let items = try Feed.items(IncrementalImageParser(registry: registry), data, chunks: Feed.pieces(data.count, size: 512))
        #expect(items.count == 1)
        let expected = try Feed.wholeBody(data, parser: ImageParser(registry: registry))
        #expect(items.first.map { Feed.difference($0.image, expected) } == .some(nil))
    }

    @Test func anEmptyBodyIsAParseError() throws {
        var parser = IncrementalImageParser()
        try parser.begin(Feed.head("image/jpeg"))
        let error = #expect(throws: ParseError.self) { try parser.finish() }
        #expect(error?.reason == "empty body")
    }
}
