import Foundation
import FuzzSupport
import NetworkKit
import NetworkKitImage

/// Every image codec through the registry, full size and as a 64-pixel thumbnail (large baseline
/// JPEGs take the 1/8-scale path): an image within the pixel limit, or a typed error. A JPEG's
/// 4-pixel thumbnail (which skips a progressive file's unneeded scans) must agree with one that
/// reads every scan: both fail, or both give the same pixels. Then the incremental path
/// (`fuzzImageStreams`): any split of the bytes gives the whole-body result.
/// `NK_FUZZ_CODEC=image/png` (or `image/jpeg`, `image/webp`) sends every input to that one codec
/// instead of the one its bytes name, so a run's executions all count for that codec.
@main enum FuzzImages { static func main() { fuzzMain(fuzzImages) } }

/// The codec named by `NK_FUZZ_CODEC`, if any.
let forcedCodec = ProcessInfo.processInfo.environment["NK_FUZZ_CODEC"].flatMap {
    ImageCodecRegistry.shared.codec(forMIMEType: $0)
}

/// The codecs a JPEG also goes through: the 1/8-scale path forced on, on one and on two threads.
let eighthScaleCodecs = [ImageFuzzHooks.jpegCodec(eighthScaleThreads: 1), ImageFuzzHooks.jpegCodec(eighthScaleThreads: 2)]

/// The reference for a JPEG thumbnail: libjpeg alone, every scan read.
let everyScanCodec = ImageFuzzHooks.jpegCodecReadingEveryScan()

func fuzzImages(_ data: Data) {
    guard let codec = forcedCodec ?? ImageCodecRegistry.shared.codec(sniffing: data) else { return }
    var runs: [(any ImageCodec, ImageDecodingOptions)] = [
        (codec, ImageDecodingOptions(pixelLimit: 16_000_000)),
        (codec, ImageDecodingOptions(maxPixelSize: 64, pixelLimit: 16_000_000)),
    ]
    if codec.format == .jpeg {
        runs += eighthScaleCodecs.map { ($0, ImageDecodingOptions(maxPixelSize: 16, pixelLimit: 16_000_000)) }
    }
    if codec.format == .jpeg { compareWithEveryScan(data) }
    for (codec, options) in runs {
        guard let image = try? codec.decode(data, options: options) else { continue }
        invariant(image.width > 0 && image.height > 0 && image.width * image.height <= 16_000_000,
                  "decoded \(image.width)×\(image.height) past the pixel limit")
        invariant(image.pixels.count >= image.bytesPerRow * image.height, "pixels shorter than the rows")
        if let side = options.maxPixelSize { invariant(max(image.width, image.height) <= side, "thumbnail \(image.width)×\(image.height) > \(side)") }
    }
    fuzzImageStreams(data, mimeType: ProcessInfo.processInfo.environment["NK_FUZZ_CODEC"])
}

/// A 4-pixel thumbnail (1/8 scale for any file from 25 pixels) that may skip scans against one that reads them all.
func compareWithEveryScan(_ data: Data) {
    let options = ImageDecodingOptions(maxPixelSize: 4, pixelLimit: 16_000_000)
    let fast = try? ImageFuzzHooks.jpegCodec(eighthScaleThreads: 0).decode(data, options: options)
    let reference = try? everyScanCodec.decode(data, options: options)
    invariant((fast == nil) == (reference == nil), "skipping scans \(fast == nil ? "failed" : "decoded"), reading them all did not")
    invariant(fast?.pixels == reference?.pixels, "skipping scans changed the pixels")
}
