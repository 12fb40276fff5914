import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage
import Testing

/// PNG thumbnails are box-filtered row by row as libpng decodes, never holding the whole image.
/// Serialized: the memory checks read the process's peak RSS, which they reset (see `PeakMemory`).
@Suite(.serialized) struct PNGThumbnailTests {
    /// What the full-size decode followed by the box filter gives: the reference for the rows path.
    static func fullThenDownsampled(_ data: Data, maxPixelSize: Int) throws -> DecodedImage {
        try PNGCodec().decode(data, options: ImageDecodingOptions()).downsampled(for: ImageDecodingOptions(maxPixelSize: maxPixelSize))
    }

    /// Every non-interlaced layout, with and without gAMA, and a larger gradient.
    @Test func rowByRowMatchesFullDecodeThenDownsample() throws {
        var files = try Fixtures.all.filter { $0.mime == "image/png" && !$0.name.contains("adam7") && $0.name != "png_interlaced" }
            .map { ($0.name, try Fixtures.data($0.file)) }
        files.append(("gradient 900×700", try #require(LargePNG.gradient(width: 900, height: 700))))
        #expect(files.count > 30)
        for (name, data) in files {
            for maxPixelSize in [1, 5, 12] {
                let streamed = try PNGCodec().decode(data, options: ImageDecodingOptions(maxPixelSize: maxPixelSize))
                let reference = try Self.fullThenDownsampled(data, maxPixelSize: maxPixelSize)
                #expect(streamed.width == reference.width && streamed.height == reference.height, "\(name)")
                #expect(streamed.sourceWidth == reference.sourceWidth && streamed.isDownsampled == reference.isDownsampled)
                // The classic API's gamma tables round 16-bit input slightly differently.
                let difference = maxDifference(streamed.pixels, reference.pixels) ?? 255
                #expect(difference <= 1, "\(name) at \(maxPixelSize) px: \(difference) apart")
            }
        }
    }

    @Test func aThumbnailOfA10000SquarePNGNeedsLittleMemory() throws {
        let size = 10_000
        let data = try #require(LargePNG.gradient(width: size, height: size))
        let (image, growth) = try PeakMemory.growth {
            try ImageParser(maxPixelSize: 64).parse(Response(url: nil, status: 200, data: data))
        }
        #expect(image.width == 64 && image.height == 64 && image.sourceWidth == size && image.isDownsampled)
        if let growth {
            #expect(growth < 64 << 20, "peak RSS grew by \(growth >> 20) MB for a 64 px thumbnail")
        }
        // Each output pixel averages a block of about 156 × 156 source pixels of the gradient.
        var worst = 0
        for y in 0..<64 {
            for x in 0..<64 {
                let rows = y * size / 64..<(y + 1) * size / 64, columns = x * size / 64..<(x + 1) * size / 64
                let red = columns.reduce(0) { $0 + Int(LargePNG.gradientPixel(x: $1, y: 0, width: size, height: size).red) }
                let green = rows.reduce(0) { $0 + Int(LargePNG.gradientPixel(x: 0, y: $1, width: size, height: size).green) }
                let expected = [Double(red) / Double(columns.count), Double(green) / Double(rows.count), 128, 255]
                for channel in 0..<4 {
                    let value = Double(image.pixels[(y * 64 + x) * 4 + channel])
                    worst = max(worst, Int(abs(value - expected[channel]).rounded(.up)))
                }
            }
        }
        #expect(worst <= 1, "thumbnail pixels are up to \(worst) from the block averages")
    }

    /// A hostile header: the pixel limit still refuses it, and lifted, the rows path fails on
    /// the missing data without allocating the image.
    @Test func aHugeHeaderNeitherPassesTheLimitNorTakesTheMemory() throws {
        let data = try Fixtures.data("png_huge_header.png")
        #expect(throws: ParseError.self) { try ImageParser(maxPixelSize: 64).parse(Response(url: nil, status: 200, data: data)) }
        let (outcome, growth) = PeakMemory.growth {
            Result { try ImageParser(maxPixelSize: 64, pixelLimit: 20_000_000_000).parse(Response(url: nil, status: 200, data: data)) }
        }
        #expect(throws: ParseError.self) { try outcome.get() }
        if let growth {
            #expect(growth < 16 << 20, "peak RSS grew by \(growth >> 20) MB")
        }
    }
}
