import FixtureServer
import Foundation
import NetworkKit
import Testing
@testable import NetworkKitImage

/// Progressive JPEGs through the image stream parser, fed by hand in chunks as the streaming
/// pipeline feeds it: previews before the end, a final image equal to the whole-body decode
/// however the bytes are split, the last preview kept by the error of a cut-off body, limits.
@Suite("Progressive JPEG streams")
struct ProgressiveJPEGStreamTests {
    typealias Feed = ImageStreamFeeding

    @Test func previewsArriveScanByScanBeforeTheEnd() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let items = try Feed.items(IncrementalImageParser(), data, chunks: Feed.pieces(data.count, size: 512))
        let previews = items.dropLast()
        #expect(items.last?.isFinal == true)
        #expect(previews.count >= 3, "only \(previews.count) previews of a progressive file")
        var lastScan = 0
        for preview in previews {
            guard case .scan(let scan) = preview.stage else { Issue.record("stage \(preview.stage)"); continue }
            #expect(scan > lastScan)
            lastScan = scan
            #expect(preview.bytesReceived < data.count)
            #expect(max(preview.image.width, preview.image.height) <= 256)
            #expect(preview.image.sourceWidth == 320 && preview.image.sourceHeight == 240)
            #expect(preview.image.pixels.contains { $0 != 0 }, "scan \(scan) preview is empty")
        }
        #expect(items.last?.bytesReceived == Int64(data.count))
    }

    @Test func laterScansLookMoreLikeTheFinalImage() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let policy = ImagePreviewPolicy(maxPixelSize: nil)
        let items = try Feed.items(IncrementalImageParser(previews: policy), data, chunks: Feed.pieces(data.count, size: 256))
        let final = try #require(items.last?.image)
        let errors = items.dropLast().map { preview in
            zip(preview.image.pixels, final.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        }
        #expect(errors.count >= 3)
        #expect(errors.last.map { $0 < (errors.first ?? 0) } == true, "errors by scan: \(errors)")
    }

    @Test(arguments: StreamImageFixtures.names)
    func finalImageEqualsTheWholeBodyDecode(name: String) throws {
        let data = try StreamImageFixtures.data(name)
        for (maxPixelSize, strict) in [(nil, false), (100, false), (40, true), (20, false)] as [(Int?, Bool)] {
            let expected = try Feed.wholeBody(data, parser: ImageParser(maxPixelSize: maxPixelSize, isStrict: strict))
            let parser = IncrementalImageParser(maxPixelSize: maxPixelSize, isStrict: strict)
            let final = try #require(try Feed.items(parser, data, chunks: Feed.pieces(data.count, size: 700)).last)
            #expect(final.isFinal)
            #expect(Feed.difference(final.image, expected) == nil, "\(name) at \(maxPixelSize.map(String.init) ?? "full size")")
        }
    }

    @Test(arguments: ["progressive.jpg", "baseline.jpg", "progressive_cmyk.jpg"])
    func anySplitGivesTheSameFinalImage(name: String) throws {
        let data = try StreamImageFixtures.data(name)
        let expected = try Feed.wholeBody(data)
        var splits: [[Range<Int>]] = [[0..<data.count], Feed.pieces(data.count, size: 1), Feed.pieces(data.count, size: 7)]
        splits += (1...8).map { Feed.randomPieces(data.count, seed: $0) }
        for (index, chunks) in splits.enumerated() {
            let final = try #require(try Feed.items(IncrementalImageParser(previews: .init(sources: .all)), data, chunks: chunks).last)
            #expect(Feed.difference(final.image, expected) == nil, "\(name), split \(index) (\(chunks.count) chunks)")
        }
    }

    @Test func aCutOffBodyEndsWithTheDecodersErrorAfterItsPreviews() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let cut = data.prefix(data.count * 3 / 4)
        var parser = IncrementalImageParser()
        try parser.begin(Feed.head("image/jpeg"))
        var previews: [ImageStreamItem] = []
        for chunk in Feed.pieces(cut.count, size: 512) { previews += try parser.parse(cut.subdata(in: chunk)) }
        #expect(previews.count >= 2)
        do {
            _ = try parser.finish()
            Issue.record("a cut-off JPEG decoded")
        } catch let error as ParseError {
            #expect(error.parser == "image" && error.kind == .image)
            #expect(error.reason.contains("Premature end of JPEG file"), "\(error.reason)")
            let kept = try #require(previews.last)
            #expect(kept.bytesReceived <= cut.count)
        }
    }

    @Test func aCutOffBodyFailsAsTheWholeBodyDecodeFails() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        for length in [10, 300, data.count / 2, data.count - 2] {
            let cut = data.prefix(length)
            let whole = #expect(throws: ParseError.self) { try Feed.wholeBody(cut) }
            let streamed = #expect(throws: ParseError.self) {
                try Feed.items(IncrementalImageParser(), cut, chunks: Feed.pieces(cut.count, size: 100))
            }
            #expect(streamed?.reason == whole?.reason, "cut at \(length)")
        }
    }

    @Test func theHeaderAloneIsCheckedAgainstThePixelLimit() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        var parser = IncrementalImageParser(pixelLimit: 320 * 240 - 1)
        try parser.begin(Feed.head("image/jpeg"))
        // The header is in the first kilobyte: the limit stops the stream there, before any pixel
        // memory, with the error the whole-body decode gives.
        let error = #expect(throws: ParseError.self) { try parser.parse(data.prefix(1024)) }
        #expect(error?.kind == .limit)
        let whole = #expect(throws: ParseError.self) { try Feed.wholeBody(data, parser: ImageParser(pixelLimit: 320 * 240 - 1)) }
        #expect(error?.reason == whole?.reason)
    }

    @Test func aHugeClaimedSizeFailsAtTheHeader() throws {
        // 60000 × 60000 claimed by the header of a small file: refused before anything is allocated.
        var data = try StreamImageFixtures.data("baseline.jpg")
        let sof = try #require(data.range(of: Data([0xFF, 0xC0]))?.lowerBound)
        data.replaceSubrange(sof + 5..<sof + 9, with: [0xEA, 0x60, 0xEA, 0x60])
        // libjpeg reads the header up to the first scan's start (SOS).
        let sos = try #require(data.range(of: Data([0xFF, 0xDA]))?.lowerBound)
        var parser = IncrementalImageParser()
        try parser.begin(Feed.head("image/jpeg"))
        let error = #expect(throws: ParseError.self) { try parser.parse(data.prefix(sos + 16)) }
        #expect(error?.kind == .limit)
    }

    /// Damaged entropy-coded data that libjpeg decodes with warnings: the streamed final image
    /// is the whole-body decode's, warnings and filled-in pixels included, however the bytes come.
    @Test(arguments: ["progressive.jpg", "baseline.jpg"])
    func aDamagedFileEndsAsTheWholeBodyDecodeEnds(name: String) throws {
        let clean = try StreamImageFixtures.data(name)
        let firstScan = try #require(clean.range(of: Data([0xFF, 0xDA]))?.upperBound)
        var warned = 0
        for seed in 1...30 as ClosedRange<UInt64> {
            var random = SeededGenerator(seed: seed)
            var data = clean
            for _ in 0..<3 {
                let at = Int.random(in: firstScan + 64..<(data.count - 64), using: &random)
                for offset in 0..<4 { data[at + offset] = UInt8.random(in: 0...255, using: &random) }
            }
            let whole = Result { try Feed.wholeBody(data) }
            if case .success(let image) = whole, !image.warnings.isEmpty { warned += 1 }
            for chunks in [Feed.pieces(data.count, size: 1), Feed.randomPieces(data.count, seed: seed)] {
                let streamed = Result { try Feed.items(IncrementalImageParser(previews: .init(sources: .all)), data, chunks: chunks).last }
                switch (whole, streamed) {
                case (.success(let expected), .success(let final?)):
                    #expect(Feed.difference(final.image, expected) == nil, "\(name), seed \(seed), \(chunks.count) chunks")
                case (.failure(let expected as ParseError), .failure(let error as ParseError)):
                    #expect(error.reason == expected.reason, "\(name), seed \(seed)")
                default:
                    Issue.record("\(name), seed \(seed): the whole body gave \(whole), the stream \(streamed)")
                }
            }
        }
        #expect(warned > 0, "no damaged variant of \(name) made libjpeg warn")
    }

    @Test func libjpegHoldsOnlyWhatItHasNotConsumed() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let decoder = try JPEGCodec().makeIncrementalDecoder(options: ImageDecodingOptions(), previews: ImagePreviewPolicy())
        let jpeg = try #require(decoder as? JPEGIncrementalDecoder)
        var most = 0
        for chunk in Feed.pieces(data.count, size: 1024) {
            _ = try decoder.append(data.subdata(in: chunk))
            most = max(most, jpeg.heldBytes)
        }
        // One chunk and what libjpeg backs up to (a marker segment, an MCU): far less than the file.
        #expect(most < 4096, "held up to \(most) of \(data.count) bytes")
        _ = try decoder.finish()
    }
}
