import CImageShims
import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage
import Testing

/// One progressive fixture file, and whether its thumbnail at 1/8 must skip scans.
struct ProgressiveFixture: Sendable, CustomStringConvertible {
    let file: String
    let skips: Bool

    var description: String { file }

    static let all: [ProgressiveFixture] = Fixtures.progressiveSizes.flatMap { width, height in
        Fixtures.progressiveLayouts.map { ProgressiveFixture(file: Fixtures.progressiveFile($0.name, width, height), skips: $0.skips) }
    }
}

/// What libjpeg gave for a file at scale `numerator`/8, with or without skipping scans.
struct ScaledDecode: Equatable {
    /// RGBA rows, or nil when libjpeg failed.
    var pixels: [UInt8]?
    /// What `nk_jpeg_skip_unneeded_scans` returned (0 when it was not called).
    var skipped: Int32
}

/// Decodes `data` through the C layer at `numerator`/8, skipping scans first when `skipping`.
/// Nil when the header does not read or the image is over 16 MP.
func decodeScaled(_ data: Data, numerator: UInt32 = 1, skipping: Bool) -> ScaledDecode? {
    guard let decoder = nk_jpeg_create() else { return nil }
    defer { nk_jpeg_destroy(decoder) }
    return data.withUnsafeBytes { bytes -> ScaledDecode? in
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return nil }
        var info = nk_jpeg_info()
        guard nk_jpeg_read_header(decoder, base, bytes.count, &info) == 0, nk_jpeg_set_scale(decoder, numerator, &info) == 0,
              Int(info.width) * Int(info.height) <= 1 << 24 else { return nil }
        let skipped = skipping ? nk_jpeg_skip_unneeded_scans(decoder) : 0
        guard skipped >= 0 else { return ScaledDecode(pixels: nil, skipped: skipped) }
        let stride = Int(info.width) * 4
        var pixels = [UInt8](repeating: 0, count: stride * Int(info.height))
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { nk_jpeg_decode(decoder, $0, stride) } ?? -1
        }
        return ScaledDecode(pixels: status == 0 ? pixels : nil, skipped: skipped)
    }
}

/// A progressive JPEG's thumbnail at 1/8 or less skips the scans that cannot change it, and
/// gives the same bytes as libjpeg's decode of the whole file at 1/8, then the box filter.
@Suite struct ProgressiveThumbnailTests {
    @Test(arguments: ProgressiveFixture.all)
    func sameBytesAsTheWholeFileAtOneEighth(_ fixture: ProgressiveFixture) throws {
        let data = try Fixtures.data(fixture.file)
        let whole = try #require(decodeScaled(data, skipping: false)?.pixels, "libjpeg failed on \(fixture)")
        let skipping = try #require(decodeScaled(data, skipping: true))
        #expect(skipping.skipped == (fixture.skips ? 1 : 0), "\(fixture): nk_jpeg_skip_unneeded_scans gave \(skipping.skipped)")
        let same = skipping.pixels == whole
        #expect(same, "\(fixture): \(skipping.pixels.flatMap { maxDifference($0, whole) } ?? -1) apart")
    }

    /// Through the codec, at several thumbnail sizes up to 1/8, against a codec that reads every scan.
    @Test(arguments: Fixtures.progressiveLayouts.map(\.name))
    func codecThumbnailsMatchTheWholeFileDecode(_ layout: String) throws {
        let data = try Fixtures.data(Fixtures.progressiveFile(layout, 640, 480))
        let reference = ImageFuzzHooks.jpegCodecReadingEveryScan()
        for maxPixelSize in [80, 64, 33, 1] {
            let options = ImageDecodingOptions(maxPixelSize: maxPixelSize)
            let thumbnail = try JPEGCodec().decode(data, options: options)
            let expected = try reference.decode(data, options: options)
            #expect(thumbnail.width == expected.width && thumbnail.height == expected.height && thumbnail.width == max(1, maxPixelSize))
            let same = thumbnail.pixels == expected.pixels
            #expect(same && !thumbnail.isIncomplete && thumbnail.warnings.isEmpty, "\(layout) at \(maxPixelSize) px")
        }
    }

    /// Above 1/8 libjpeg needs the AC coefficients: every scan is read. So is a baseline file.
    @Test func largerScalesAndBaselineFilesReadEveryScan() throws {
        let progressive = try Fixtures.data(Fixtures.progressiveFile("444", 640, 480))
        for numerator: UInt32 in [2, 4, 8] {
            #expect(decodeScaled(progressive, numerator: numerator, skipping: true)?.skipped == 0, "at \(numerator)/8")
        }
        for file in ["eighth_420_640x480.jpg", "eighth_444_640x480.jpg", "jpeg_baseline.jpg", "eighth_arithmetic_640x480.jpg"] {
            #expect(decodeScaled(try Fixtures.data(file), skipping: true)?.skipped == 0, "\(file)")
        }
    }

    /// Damage in a luma AC scan: the whole image reports it, the thumbnail never reads it, and a
    /// strict thumbnail reads every scan and fails.
    @Test func damageInASkippedScanIsNotRead() throws {
        let data = try Fixtures.data(Fixtures.progressiveFile("420", 640, 480))
        // jpeg_simple_progression's second scan is luma AC 1-5; all-ones bits are no Huffman code.
        let scans = Self.scanStarts(data)
        try #require(scans.count == 10)
        var damaged = data
        let header = Int(damaged[scans[1] + 2]) << 8 | Int(damaged[scans[1] + 3])
        for offset in stride(from: scans[1] + 2 + header + 16, to: scans[1] + 2 + header + 80, by: 2) {
            damaged.replaceSubrange(offset..<offset + 2, with: [0xFF, 0x00])
        }
        let whole = try JPEGCodec().decode(damaged, options: ImageDecodingOptions())
        #expect(whole.isIncomplete, "the damage must show in a full decode")
        let options = ImageDecodingOptions(maxPixelSize: 64)
        let thumbnail = try JPEGCodec().decode(damaged, options: options)
        #expect(!thumbnail.isIncomplete && thumbnail.warnings.isEmpty, "\(thumbnail.warnings)")
        let intact = try JPEGCodec().decode(data, options: options)
        #expect(thumbnail.pixels == intact.pixels)
        let readingAll = try ImageFuzzHooks.jpegCodecReadingEveryScan().decode(damaged, options: options)
        #expect(readingAll.isIncomplete)
        #expect(throws: ParseError.self) {
            try JPEGCodec().decode(damaged, options: ImageDecodingOptions(maxPixelSize: 64, isStrict: true))
        }
    }

    /// Where each SOS marker starts.
    static func scanStarts(_ data: Data) -> [Int] {
        var starts: [Int] = [], from = data.startIndex
        while let found = data.range(of: Data([0xFF, 0xDA]), in: from..<data.endIndex) {
            starts.append(found.lowerBound)
            from = found.upperBound
        }
        return starts
    }
}
