import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage

/// Feeding an ``IncrementalImageParser`` by hand, as the streaming pipeline does.
enum ImageStreamFeeding {
    /// The response head a body of type `mimeType` begins with.
    static func head(_ mimeType: String?, url: URL? = URL(string: "http://127.0.0.1/image")) -> Response {
        Response(url: url, status: 200, headerFields: mimeType.map { [.contentType: $0] } ?? [:], data: Data())
    }

    /// The items `parser` gives for `data` cut into `chunks`, then its end.
    static func items(_ parser: IncrementalImageParser, _ data: Data, chunks: [Range<Int>],
                      mimeType: String? = "image/jpeg") throws -> [ImageStreamItem] {
        var parser = parser
        try parser.begin(head(mimeType))
        var items: [ImageStreamItem] = []
        for chunk in chunks { items += try parser.parse(data.subdata(in: chunk)) }
        return try items + parser.finish()
    }

    /// `count` bytes cut into pieces of `size` (the last shorter).
    static func pieces(_ count: Int, size: Int) -> [Range<Int>] {
        stride(from: 0, to: count, by: max(size, 1)).map { $0..<min(count, $0 + max(size, 1)) }
    }

    /// `count` bytes cut at random places by a generator seeded with `seed`.
    static func randomPieces(_ count: Int, seed: UInt64) -> [Range<Int>] {
        var random = SeededGenerator(seed: seed)
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let length = Int.random(in: 1...2048, using: &random)
            ranges.append(start..<min(count, start + length))
            start += length
        }
        return ranges
    }

    /// The MIME type of a fixture file, by its extension.
    static func mimeType(_ file: String) -> String {
        file.hasSuffix(".png") ? "image/png" : file.hasSuffix(".webp") ? "image/webp" : "image/jpeg"
    }

    /// The whole-body decode that the final image must equal.
    static func wholeBody(_ data: Data, parser: ImageParser = ImageParser(), mimeType: String? = "image/jpeg") throws -> DecodedImage {
        var response = head(mimeType)
        response.data = data
        return try parser.parse(response)
    }

    /// What differs between two images, or nil when they are the same, pixel for pixel.
    static func difference(_ a: DecodedImage, _ b: DecodedImage) -> String? {
        let fields: [(String, String, String)] = [
            ("size", "\(a.width)×\(a.height)", "\(b.width)×\(b.height)"),
            ("bytesPerRow", "\(a.bytesPerRow)", "\(b.bytesPerRow)"),
            ("source", "\(a.sourceWidth)×\(a.sourceHeight)", "\(b.sourceWidth)×\(b.sourceHeight)"),
            ("orientation", "\(a.orientation)", "\(b.orientation)"), ("scale", "\(a.scale)", "\(b.scale)"),
            ("format", "\(a.format)", "\(b.format)"), ("frameCount", "\(a.frameCount)", "\(b.frameCount)"),
            ("isIncomplete", "\(a.isIncomplete)", "\(b.isIncomplete)"), ("warnings", "\(a.warnings)", "\(b.warnings)"),
        ]
        if let field = fields.first(where: { $0.1 != $0.2 }) { return "\(field.0): \(field.1) against \(field.2)" }
        guard a.pixels == b.pixels else {
            let index = zip(a.pixels, b.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1
            return "pixels differ first at byte \(index)"
        }
        return nil
    }
}
