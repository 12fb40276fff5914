import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage
import Testing

/// Files whose pixel data ends early but that end properly: decoded partially and flagged by
/// default, refused in strict mode.
@Suite struct IncompleteImageTests {
    /// The first half of `jpeg`'s entropy-coded data, then an EOI marker.
    static func halfScanThenEOI(_ jpeg: Data) throws -> Data {
        let scan = try #require(jpeg.range(of: Data([0xFF, 0xDA]), options: .backwards), "no SOS marker").lowerBound
        let cut = scan + (jpeg.count - scan) / 2
        return jpeg.prefix(cut) + Data([0xFF, 0xD9])
    }

    static func isIncompleteImageError(_ error: any Error) -> Bool {
        guard let error = error as? ParseError, error.kind == .image,
              let underlying = error.underlying as? IncompleteImageError else { return false }
        return underlying.format == .jpeg && underlying.reason.contains("premature end of data segment")
    }

    @Test(arguments: ["jpeg_baseline.jpg", "jpeg_progressive.jpg", "jpeg_gray.jpg"])
    func halfAJPEGDecodesFlaggedByDefault(_ file: String) throws {
        let damaged = try Self.halfScanThenEOI(Fixtures.data(file))
        let image = try ImageParser().parse(Response(url: nil, status: 200, data: damaged))
        #expect(image.isIncomplete)
        #expect(image.warnings.contains { $0.contains("premature end of data segment") }, "\(image.warnings)")
    }

    @Test(arguments: ["jpeg_baseline.jpg", "jpeg_progressive.jpg", "jpeg_gray.jpg"])
    func halfAJPEGFailsWhenStrict(_ file: String) throws {
        let damaged = try Self.halfScanThenEOI(Fixtures.data(file))
        #expect {
            try ImageParser(isStrict: true).parse(Response(url: nil, status: 200, data: damaged))
        } throws: { Self.isIncompleteImageError($0) }
    }

    /// The 1/8-scale path declines damaged scans, so libjpeg reports them the same way.
    @Test func halfAJPEGThumbnailIsFlaggedToo() throws {
        let damaged = try Self.halfScanThenEOI(Fixtures.data("eighth_420_640x480.jpg"))
        let options = ImageDecodingOptions(maxPixelSize: 40)
        for threads in [0, 1, 2] {
            let image = try JPEGCodec(eighthScaleThreads: threads).decode(damaged, options: options)
            #expect(image.isIncomplete && image.width == 40, "\(threads) threads")
            var strict = options
            strict.isStrict = true
            #expect("\(threads) threads") {
                try JPEGCodec(eighthScaleThreads: threads).decode(damaged, options: strict)
            } throws: { Self.isIncompleteImageError($0) }
        }
    }

    @Test func intactImagesAreNotFlagged() throws {
        for file in ["jpeg_baseline.jpg", "jpeg_progressive.jpg", "jpeg_cmyk.jpg", "eighth_420_640x480.jpg",
                     "png_rgba8.png", "png_interlaced.png", "webp_lossy.webp", "webp_animated.webp"] {
            for maxPixelSize in [nil, 8] {
                let image = try ImageParser(maxPixelSize: maxPixelSize, isStrict: true)
                    .parse(Response(url: nil, status: 200, data: try Fixtures.data(file)))
                #expect(!image.isIncomplete && image.warnings.isEmpty, "\(file): \(image.warnings)")
            }
        }
    }

    /// libpng has no partial result: PNG image data that stops short is an error in either mode.
    @Test func aPNGWhoseImageDataStopsShortFails() throws {
        let png = try Fixtures.data("png_thumb.png")
        let idat = try #require(png.range(of: Data("IDAT".utf8))).lowerBound - 4
        let length = png[idat..<idat + 4].reduce(0) { $0 << 8 | Int($1) }
        let compressed = png[idat + 8..<idat + 8 + length]
        var damaged = Data(png[..<idat])
        damaged.appendChunk("IDAT", Data(compressed.prefix(compressed.count / 2)))
        damaged.appendChunk("IEND", Data())
        for strict in [false, true] {
            for maxPixelSize in [nil, 50] {
                #expect(throws: ParseError.self, "strict \(strict), maxPixelSize \(String(describing: maxPixelSize))") {
                    try ImageParser(maxPixelSize: maxPixelSize, isStrict: strict).parse(Response(url: nil, status: 200, data: damaged))
                }
            }
        }
    }
}
