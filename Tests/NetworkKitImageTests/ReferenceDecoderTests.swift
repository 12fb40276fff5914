import Foundation
import NetworkKit
import NetworkKitImage
import Testing

/// Every fixture decoded through `ImageParser` and compared with its reference decoder.
@Suite struct ReferenceDecoderTests {
    @Test func everyFixtureMatchesItsReference() throws {
        #expect(try Fixtures.all.count >= 20)
        for fixture in try Fixtures.all {
            let data = try Fixtures.data(fixture.file)
            let response = Response(
                url: URL(string: "https://example.com/\(fixture.file)"), status: 200,
                headerFields: [.contentType: fixture.mime], data: data
            )
            let image = try ImageParser(maxPixelSize: fixture.maxPixelSize).parse(response)
            #expect(image.width == fixture.width, "\(fixture) width")
            #expect(image.height == fixture.height, "\(fixture) height")
            #expect(image.sourceWidth == fixture.sourceWidth, "\(fixture) source width")
            #expect(image.sourceHeight == fixture.sourceHeight, "\(fixture) source height")
            #expect(image.orientation.rawValue == fixture.orientation, "\(fixture) orientation")
            #expect(image.frameCount == fixture.frameCount, "\(fixture) frame count")
            #expect(image.pixelFormat == .rgba8 && image.bytesPerRow == image.width * 4, "\(fixture) layout")
            guard let reference = fixture.reference else { continue }
            let expected = [UInt8](try Fixtures.data(reference))
            let difference = maxDifference(image.pixels, expected)
            #expect((difference ?? Int.max) <= fixture.tolerance,
                    "\(fixture): max difference \(difference.map(String.init) ?? "size mismatch"), tolerance \(fixture.tolerance)")
        }
    }

    @Test func formatsAreReported() throws {
        for (name, format) in [("png_rgb8", ImageFormat.png), ("jpeg_baseline", .jpeg), ("webp_lossy", .webp)] {
            let fixture = try #require(try Fixtures.named(name))
            let image = try ImageParser().parse(Response(url: nil, status: 200, data: try Fixtures.data(fixture.file)))
            #expect(image.format == format)
        }
    }

}
