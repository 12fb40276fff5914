import Foundation
import FixtureServer
import NetworkKit
import NetworkKitImage
import Testing

/// Damaged files must throw, never crash: every truncation length, and seeded byte flips.
@Suite struct CorruptInputTests {
    static let smallFiles = ["png_rgba8", "png_interlaced", "png_layout_rgba16_adam7_gamma", "png_palette_trns",
                             "jpeg_baseline", "jpeg_progressive", "jpeg_cmyk", "webp_lossy", "webp_lossless", "webp_alpha",
                             "webp_animated"]

    @Test(arguments: smallFiles)
    func everyTruncationThrows(_ name: String) throws {
        let fixture = try #require(try Fixtures.named(name))
        let data = try Fixtures.data(fixture.file)
        let codec = try #require(ImageCodecRegistry.shared.codec(forMIMEType: fixture.mime))
        var decodedAnyway: [Int] = []
        for length in 0..<data.count {
            do {
                _ = try codec.decode(data.prefix(length), options: ImageDecodingOptions())
                decodedAnyway.append(length)
            } catch let error as ParseError {
                #expect(error.parser == "image")
            }
        }
        #expect(decodedAnyway.isEmpty, "\(name): truncations decoded without error: \(decodedAnyway)")
    }

    @Test(arguments: smallFiles)
    func randomByteFlipsNeverCrash(_ name: String) throws {
        let fixture = try #require(try Fixtures.named(name))
        let original = try Fixtures.data(fixture.file)
        var random = SeededGenerator(seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        var failures = 0
        for _ in 0..<300 {
            var damaged = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<damaged.count, using: &random)
                damaged[index] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                let image = try ImageParser().parse(Response(url: nil, status: 200, data: damaged))
                #expect(image.pixels.count >= image.bytesPerRow * image.height)
            } catch is ParseError {
                failures += 1
            }
        }
        // Flips inside entropy-coded data may still decode (to different pixels); headers must not.
        #expect(failures > 0, "\(name): no flip was detected at all")
    }

    @Test func progressiveFilesWithEndlessScansAreRefused() throws {
        let data = try Fixtures.data("jpeg_many_scans.jpg")
        let error = #expect(throws: ParseError.self) { try JPEGCodec().decode(data, options: ImageDecodingOptions()) }
        #expect(error.map { "\($0)" }?.contains("more than 500 scans") == true, "\(String(describing: error))")
    }

    @Test func garbageAndEmptyBodiesThrow() throws {
        for body in [Data(), Data("<html>not an image</html>".utf8), Data(repeating: 0xFF, count: 64)] {
            #expect(throws: ParseError.self) {
                try ImageParser().parse(Response(url: nil, status: 200, headerFields: [.contentType: "image/png"], data: body))
            }
        }
    }
}
