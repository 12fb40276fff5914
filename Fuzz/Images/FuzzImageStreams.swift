import Foundation
import FuzzSupport
import NetworkKit
import NetworkKitImage

/// The incremental path: the same bytes through ``IncrementalImageParser`` (every preview on),
/// whole and cut into chunks of sizes the input chooses, must end as ``ImageParser`` ends for
/// the whole body: the same image, pixel for pixel and with the same warnings, or an error in both.
func fuzzImageStreams(_ data: Data, mimeType: String?) {
    fuzzScanFilter(data)
    for maxPixelSize in [nil, 64] as [Int?] {
        var response = Response(url: nil, status: 200, headerFields: mimeType.map { [.contentType: $0] } ?? [:], data: data)
        let whole = Result { try ImageParser(maxPixelSize: maxPixelSize, pixelLimit: 16_000_000).parse(response) }
        response.data = Data()
        for chunks in [[0..<data.count], chunkRanges(data)] {
            let streamed = Result { try streamedImage(data, chunks: chunks, head: response, maxPixelSize: maxPixelSize) }
            switch (whole, streamed) {
            case (.success(let a), .success(let b)):
                invariant(a.width == b.width && a.height == b.height && a.orientation == b.orientation
                          && a.pixels == b.pixels && a.warnings == b.warnings && a.isIncomplete == b.isIncomplete,
                          "the streamed image (\(chunks.count) chunks) differs from the whole-body decode")
            case (.failure, .failure):
                break
            case (.success, .failure(let error)):
                invariant(false, "the whole body decodes but the stream (\(chunks.count) chunks) failed: \(error)")
            case (.failure(let error), .success):
                invariant(false, "the stream (\(chunks.count) chunks) decoded what the whole body could not: \(error)")
            }
        }
    }
}

/// The final image of `data` fed in `chunks`, checking the previews on the way.
private func streamedImage(_ data: Data, chunks: [Range<Int>], head: Response, maxPixelSize: Int?) throws -> DecodedImage {
    var parser = IncrementalImageParser(maxPixelSize: maxPixelSize, pixelLimit: 16_000_000,
                                        previews: ImagePreviewPolicy(sources: .all, maxPixelSize: 32))
    try parser.begin(head)
    for chunk in chunks {
        for item in try parser.parse(data.subdata(in: chunk)) {
            invariant(!item.isFinal && max(item.image.width, item.image.height) <= 32, "a preview of \(item.image.width)×\(item.image.height)")
        }
    }
    let items = try parser.finish()
    guard let final = items.last, items.count == 1, final.isFinal else {
        invariant(false, "finish gave \(items.count) items")
        throw ParseError(parser: "fuzz", reason: "no final image")
    }
    return final.image
}

/// `data` cut into chunks of 1 to 256 bytes, the sizes taken from the data itself.
private func chunkRanges(_ data: Data) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    var state = UInt32(truncatingIfNeeded: data.count) &* 2_654_435_761
    while start < data.count {
        state = state &* 1_103_515_245 &+ 12_345 &+ UInt32(data[data.startIndex + start])
        let length = Int(state >> 24) + 1
        ranges.append(start..<min(data.count, start + length))
        start += length
    }
    return ranges
}

/// The preview decoder's scan filter: never a trap, and the same bytes out however the file is cut.
private func fuzzScanFilter(_ data: Data) {
    var whole = JPEGScanFilter { _, _ in true }
    let once = whole.filter(data)
    var pieces = JPEGScanFilter { _, _ in true }
    var split = Data()
    for chunk in chunkRanges(data) { split += pieces.filter(data.subdata(in: chunk)) }
    invariant(split == once && pieces.completedScans == whole.completedScans && pieces.isBroken == whole.isBroken,
              "the scan filter gave other bytes for the file in chunks")
    invariant(once.count <= data.count + 4 * whole.completedScans, "the scan filter made the file longer than its placeholders allow")
}
