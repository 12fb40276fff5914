import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage
import Testing

private typealias Feed = ImageStreamFeeding

/// `JPEGScanFilter`: which bytes of a progressive JPEG the preview decoder gets at 1/8 scale.
@Suite struct JPEGScanFilterTests {
    /// Scan headers in a file cjpeg wrote (no 0xFF 0xDA inside its other segments).
    private static func scanHeaders(_ data: Data) -> [(offset: Int, isAC: Bool)] {
        var found: [(Int, Bool)] = []
        var index = data.startIndex
        while let range = data[index...].range(of: Data([0xFF, 0xDA])) {
            let count = Int(data[range.upperBound + 2])
            found.append((range.lowerBound, data[range.upperBound + 3 + 2 * count] > 0))
            index = range.upperBound
        }
        return found
    }

    private static func filtered(_ data: Data, chunks: [Range<Int>], drops: Bool = true) -> (Data, JPEGScanFilter) {
        var filter = JPEGScanFilter { _, _ in drops }
        var out = Data()
        for chunk in chunks { out += filter.filter(data.subdata(in: chunk)) }
        return (out, filter)
    }

    @Test(arguments: ["progressive.jpg", "progressive_gray.jpg", "progressive_restart.jpg", "progressive_cmyk.jpg"])
    func theACScansAreLeftOutHoweverTheBytesAreSplit(name: String) throws {
        let data = try StreamImageFixtures.data(name)
        let scans = Self.scanHeaders(data)
        let (whole, filter) = Self.filtered(data, chunks: [0..<data.count])
        #expect(filter.isFiltering && filter.reachedEnd && !filter.isBroken)
        #expect(filter.completedScans == scans.count)
        let kept = Self.scanHeaders(whole)
        #expect(kept.count == scans.filter { !$0.isAC }.count && kept.allSatisfy { !$0.isAC })
        #expect((1...scans.count).map(filter.decodedScans(through:)).last == kept.count)
        for chunks in [Feed.pieces(data.count, size: 1), Feed.pieces(data.count, size: 5), Feed.randomPieces(data.count, seed: 3)] {
            let (split, again) = Self.filtered(data, chunks: chunks)
            #expect(split == whole, "\(name) in \(chunks.count) chunks")
            #expect(again.completedScans == filter.completedScans)
        }
        // What is left is a JPEG libjpeg decodes; at 1/8 it is close to the whole file's (noise
        // would be about 85 apart; the CMYK file, whose four channels all lose their AC, about 15).
        let reduced = try Feed.wholeBody(whole, parser: ImageParser(maxPixelSize: 40))
        let full = try Feed.wholeBody(data, parser: ImageParser(maxPixelSize: 40))
        #expect(reduced.width == full.width && reduced.height == full.height)
        #expect(Self.meanDifference(reduced.pixels, full.pixels) < 20, "\(name): \(Self.meanDifference(reduced.pixels, full.pixels))")
    }

    @Test func sequentialFilesAndLargerScalesPassThroughUnchanged() throws {
        let baseline = try StreamImageFixtures.data("baseline.jpg")
        #expect(Self.filtered(baseline, chunks: Feed.pieces(baseline.count, size: 9)).0 == baseline)
        let progressive = try StreamImageFixtures.data("progressive.jpg")
        let (out, filter) = Self.filtered(progressive, chunks: Feed.pieces(progressive.count, size: 9), drops: false)
        #expect(out == progressive && !filter.isFiltering)
    }

    @Test func whatTheWalkCannotFollowStopsIt() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let scan = try #require(Self.scanHeaders(data).first?.offset)
        var garbled = data
        garbled[scan + 3] = 0x01   // the scan header's length no longer adds up
        let (_, filter) = Self.filtered(garbled, chunks: Feed.pieces(garbled.count, size: 64))
        #expect(filter.isBroken)
        // The stream still ends with the whole-body decode, previews or not.
        let expected = Result { try Feed.wholeBody(garbled) }
        let streamed = Result { try Feed.items(IncrementalImageParser(previews: .init(sources: .all, maxPixelSize: 40)), garbled,
                                               chunks: Feed.pieces(garbled.count, size: 64)).last }
        switch (expected, streamed) {
        case (.success(let image), .success(let final?)): #expect(Feed.difference(final.image, image) == nil)
        case (.failure, .failure): break
        default: Issue.record("the whole body gave \(expected), the stream \(streamed)")
        }
    }

    @Test func previewsAtOneEighthStillComeAfterEveryScan() throws {
        let data = try StreamImageFixtures.data("progressive.jpg")
        let scans = Self.scanHeaders(data).count
        let parser = IncrementalImageParser(previews: .init(sources: .all, maxPixelSize: 40))
        let items = try Feed.items(parser, data, chunks: Feed.pieces(data.count, size: 97))
        let previews = items.filter { !$0.isFinal }
        #expect(previews.map(\.stage) == (1..<scans).map { ImageStreamStage.scan($0) })
        let final = try #require(items.last?.image)
        let reference = try Feed.wholeBody(data, parser: ImageParser(maxPixelSize: 40))
        #expect(Feed.difference(final, try Feed.wholeBody(data)) == nil)
        for preview in previews.dropFirst() {
            #expect(Self.meanDifference(preview.image.pixels, reference.pixels) < 6)
        }
    }

    /// The mean absolute difference of two pixel buffers of one size (255 when the sizes differ).
    private static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 255 }
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }
}
