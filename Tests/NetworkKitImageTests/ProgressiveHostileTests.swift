import Foundation
import FixtureServer
import NetworkKit
@testable import NetworkKitImage
import Testing

/// Damaged and hostile progressive files, thumbnailed at 1/8 where scans are skipped: a
/// `ParseError` exactly when reading every scan gives one, and otherwise the same pixels.
@Suite struct ProgressiveHostileTests {
    static let thumbnail = ImageDecodingOptions(maxPixelSize: 20)

    /// The thumbnail (skipping scans) and the reference (every scan): both fail with a
    /// `ParseError` of parser "image", or both decode to the same pixels.
    static func expectSameOutcome(_ data: Data, _ label: @autoclosure () -> String) {
        let fast = Result { try JPEGCodec().decode(data, options: thumbnail) }
        let reference = Result { try ImageFuzzHooks.jpegCodecReadingEveryScan().decode(data, options: thumbnail) }
        switch (fast, reference) {
        case let (.success(image), .success(expected)):
            #expect(image.pixels == expected.pixels && image.width == expected.width, "\(label()): different pixels")
        case let (.failure(error), .failure):
            #expect((error as? ParseError)?.parser == "image", "\(label()): \(error)")
        case let (.success, .failure(error)):
            Issue.record("\(label()): decoded, though reading every scan fails: \(error)")
        case let (.failure(error), .success):
            Issue.record("\(label()): failed, though reading every scan decodes: \(error)")
        }
    }

    @Test(arguments: ["420", "444", "restart", "arithmetic"])
    func everyTruncationThrows(_ layout: String) throws {
        let data = try Fixtures.data(Fixtures.progressiveFile(layout, 203, 157))
        for length in stride(from: 0, to: data.count, by: 3) {
            #expect(throws: ParseError.self, "\(layout) cut to \(length) bytes") {
                try JPEGCodec().decode(data.prefix(length), options: Self.thumbnail)
            }
        }
    }

    /// A cut followed by an end marker ends a scan early (gray in the whole image): the
    /// thumbnail must agree with the whole file's decode wherever the cut falls.
    @Test(arguments: ["420", "444", "restart"])
    func truncationsWithAnEndMarkerMatchTheWholeFile(_ layout: String) throws {
        let data = try Fixtures.data(Fixtures.progressiveFile(layout, 203, 157))
        for length in stride(from: 0, to: data.count, by: 5) {
            Self.expectSameOutcome(data.prefix(length) + Data([0xFF, 0xD9]), "\(layout) cut to \(length) bytes")
        }
    }

    @Test(arguments: ["420", "444", "arithmetic"])
    func randomByteFlipsMatchTheWholeFile(_ layout: String) throws {
        let original = try Fixtures.data(Fixtures.progressiveFile(layout, 203, 157))
        var random = SeededGenerator(seed: UInt64(layout.utf8.count * 104_729))
        for round in 0..<400 {
            var damaged = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= 1 << UInt8.random(in: 0...7, using: &random)
            }
            Self.expectSameOutcome(damaged, "\(layout), round \(round)")
        }
    }

    /// Segment lengths that run past the end, or are too short to hold their own length field,
    /// in a table segment between scans and in the header of a scan that would be skipped.
    @Test func bogusLengthsThrow() throws {
        let data = try Fixtures.data(Fixtures.progressiveFile("420", 203, 157))
        let scans = ProgressiveThumbnailTests.scanStarts(data)
        let table = try #require(data.range(of: Data([0xFF, 0xC4]), in: scans[0]..<data.endIndex)).lowerBound
        for position in [table, scans[1]] {
            for length: [UInt8] in [[0xFF, 0xFF], [0x00, 0x00], [0x00, 0x01], [0x00, 0x09]] {
                var damaged = data
                damaged.replaceSubrange(position + 2..<position + 4, with: length)
                #expect(throws: ParseError.self, "length \(length) at \(position)") {
                    try JPEGCodec().decode(damaged, options: Self.thumbnail)
                }
                Self.expectSameOutcome(damaged, "length \(length) at \(position)")
            }
        }
    }

    @Test func moreThan500ScansAreRefused() throws {
        let data = try Fixtures.data("jpeg_many_scans.jpg")
        let error = #expect(throws: ParseError.self) {
            try JPEGCodec().decode(data, options: ImageDecodingOptions(maxPixelSize: 7))
        }
        #expect(error.map { "\($0)" }?.contains("more than 500 scans") == true, "\(String(describing: error))")
    }

    /// SOF2 rewritten to claim 60 000 × 60 000: refused by size before anything is allocated.
    @Test func thePixelLimitHolds() throws {
        var huge = try Fixtures.data(Fixtures.progressiveFile("420", 203, 157))
        let frame = try #require(huge.range(of: Data([0xFF, 0xC2]))).lowerBound
        huge.replaceSubrange(frame + 5..<frame + 9, with: [0xEA, 0x60, 0xEA, 0x60])
        #expect {
            try JPEGCodec().decode(huge, options: Self.thumbnail)
        } throws: { error in
            (error as? ParseError).map { $0.kind == .limit && $0.parser == "image" } == true
        }
    }
}
