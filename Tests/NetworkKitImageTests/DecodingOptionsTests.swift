import Foundation
import NetworkKit
import NetworkKitImage
import Testing

/// Pixel limit, scale, thumbnails and PNG encoding.
@Suite struct DecodingOptionsTests {
    @Test func hugeHeadersAreRefusedBeforeAllocating() throws {
        // 100 000² PNG and 60 000² JPEG headers would need 40 GB and 14 GB of RGBA.
        for file in ["png_huge_header.png", "jpeg_huge_header.jpg"] {
            let response = Response(url: nil, status: 200, data: try Fixtures.data(file))
            #expect("\(file)") {
                try ImageParser().parse(response)
            } throws: { error in
                (error as? ParseError)?.reason.contains("over the pixel limit of 100000000") == true
            }
        }
    }

    @Test func pixelLimitAppliesToEveryCodec() throws {
        for file in ["png_rgb8.png", "jpeg_baseline.jpg", "webp_lossy.webp", "webp_animated.webp"] {
            let response = Response(url: nil, status: 200, data: try Fixtures.data(file))
            #expect(throws: ParseError.self, "\(file)") { try ImageParser(pixelLimit: 100).parse(response) }
            // A thumbnail does not lift the limit: it is checked against the source size.
            #expect(throws: ParseError.self, "\(file)") { try ImageParser(maxPixelSize: 4, pixelLimit: 100).parse(response) }
        }
    }

    @Test func thumbnailsWeightColoursByAlpha() throws {
        // Transparent red beside opaque green: the thumbnail pixel is half-transparent green, not brown.
        let pixels: [UInt8] = [255, 0, 0, 0, 0, 255, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0]
        let image = try DecodedImage(width: 2, height: 2, pixels: pixels, format: .png)
        let thumbnail = try ImageParser(maxPixelSize: 1).parse(Response(url: nil, status: 200, data: image.pngData()))
        #expect(thumbnail.pixels == [0, 255, 0, 64])
    }

    @Test func scaleComesFromTheURLUnlessGiven() throws {
        let data = try Fixtures.data("png_rgb8.png")
        func scale(_ url: String, explicit: Double? = nil) throws -> Double {
            try ImageParser(scale: explicit).parse(Response(url: URL(string: url), status: 200, data: data)).scale
        }
        #expect(try scale("https://a.example/icon.png") == 1)
        #expect(try scale("https://a.example/icon@2x.png") == 2)
        #expect(try scale("https://a.example/img/icon@3x.png?v=4") == 3)
        #expect(try scale("https://a.example/icon@2x/other.png") == 1)
        #expect(try scale("https://a.example/icon@3x.png", explicit: 1.5) == 1.5)
    }

    @Test func thumbnailsKeepAspectAndReportTheSource() throws {
        for file in ["png_thumb.png", "jpeg_large.jpg", "webp_large.webp", "webp_animated.webp"] {
            let image = try ImageParser(maxPixelSize: 16).parse(Response(url: nil, status: 200, data: try Fixtures.data(file)))
            #expect(max(image.width, image.height) == 16, "\(file)")
            #expect(image.isDownsampled, "\(file)")
            let sourceAspect = Double(image.sourceWidth) / Double(image.sourceHeight)
            #expect(abs(Double(image.width) / Double(image.height) - sourceAspect) < 0.15, "\(file)")
        }
        // Never enlarged.
        let small = try ImageParser(maxPixelSize: 1000).parse(Response(url: nil, status: 200, data: try Fixtures.data("png_rgb8.png")))
        #expect(!small.isDownsampled && small.width == 37)
    }

    @Test func pngDataRoundTrips() throws {
        for file in ["png_rgba8.png", "jpeg_gray.jpg", "webp_alpha.webp"] {
            let image = try ImageParser().parse(Response(url: nil, status: 200, data: try Fixtures.data(file)))
            let encoded = try image.pngData()
            let decoded = try PNGCodec().decode(encoded, options: ImageDecodingOptions())
            #expect(decoded.width == image.width && decoded.height == image.height, "\(file)")
            #expect(decoded.pixels == image.pixels, "\(file)")
        }
    }

    @Test func exifOrientationIsReportedNotApplied() throws {
        let image = try ImageParser().parse(Response(url: nil, status: 200, data: try Fixtures.data("jpeg_exif6.jpg")))
        #expect(image.orientation == .right)
        #expect(image.width == 40 && image.height == 30) // stored landscape, not rotated
    }
}
