import FixtureServer
import Foundation
import NetworkKit
import NetworkKitImage

/// Image decoding speed against the raw C libraries, their command-line tools and Pillow.
/// Prints one line per comparison: median times, megapixels per second and
/// `ratio` = NetworkKit / reference (lower is better).
func runImageBenchmarks() throws {
    let fixtures = try ImageBenchmarkFixtures.prepare()
    let jpeg = try Data(contentsOf: fixtures.jpeg)
    let png = try Data(contentsOf: fixtures.png)
    let webp = try Data(contentsOf: fixtures.webp)
    print("image decoding (median of several runs; ratio = NetworkKit / reference, lower is better)")

    let (jpegNK, jpegRaw) = try measurePair(iterations: 11) { try decode(jpeg) } and: { ImageReferenceDecoders.libjpegRGBA(jpeg) }
    let djpeg = try measure(iterations: 5) { try toolOutput(["djpeg", "-pnm", "-outfile", "/dev/null", fixtures.jpeg.path]) }
    report("jpeg 12 MP", megapixels: 12, jpegNK, against: "libjpeg-turbo C API", jpegRaw)
    report("jpeg 12 MP", megapixels: 12, jpegNK, against: "djpeg CLI (process wall time, RGB)", djpeg)
    report("jpeg 12 MP", megapixels: 12, jpegNK, against: "Pillow convert(RGBA)", try pillow(fixtures.jpeg))

    let (pngNK, pngRaw) = try measurePair(iterations: 9) { try decode(png) } and: { ImageReferenceDecoders.libpngRGBA(png) }
    report("png 4 MP", megapixels: 4, pngNK, against: "libpng simplified API", pngRaw)
    report("png 4 MP", megapixels: 4, pngNK, against: "Pillow convert(RGBA)", try pillow(fixtures.png))

    let (webpNK, webpRaw) = try measurePair(iterations: 11) { try decode(webp) } and: { ImageReferenceDecoders.libwebpRGBA(webp) }
    let dwebp = try measure(iterations: 5) { try toolOutput(["dwebp", "-quiet", "-pam", fixtures.webp.path, "-o", "/dev/null"]) }
    report("webp 4 MP", megapixels: 4, webpNK, against: "libwebp WebPDecodeRGBAInto", webpRaw)
    report("webp 4 MP", megapixels: 4, webpNK, against: "dwebp CLI (process wall time)", dwebp)
    report("webp 4 MP", megapixels: 4, webpNK, against: "Pillow convert(RGBA)", try pillow(fixtures.webp))

    // A thumbnail still entropy-decodes the whole file, so its gain depends on how much of
    // the file is Huffman data: shown for the grainy photo and for a smooth one. The 1/8 path
    // skips the coefficients 1/8 scale does not use and splits the work between threads (up
    // to 4, here the machine's cores); `maxThreads: 1` shows the same path on one thread.
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let (thumbnail, full) = try measurePair(iterations: 11) { try decode(jpeg, maxPixelSize: 256) } and: { try decode(jpeg) }
    let (thumbnailAgain, rawEighth) = try measurePair(iterations: 15) { try decode(jpeg, maxPixelSize: 256) } and: {
        ImageReferenceDecoders.libjpegRGBA(jpeg, scaleNumerator: 1)
    }
    let (oneThread, fullAgain) = try measurePair(iterations: 11) {
        try JPEGCodec(maxThreads: 1).decode(jpeg, options: ImageDecodingOptions(maxPixelSize: 256))
    } and: { try decode(jpeg) }
    report("jpeg 12 MP → 256 px thumbnail (\(min(cores, 4)) threads)", megapixels: 12, thumbnail, against: "NetworkKit full decode", full)
    report("jpeg 12 MP → 256 px thumbnail (\(min(cores, 4)) threads)", megapixels: 12, thumbnailAgain,
           against: "libjpeg-turbo C API at 1/8 scale", rawEighth)
    report("jpeg 12 MP → 256 px thumbnail (maxThreads: 1)", megapixels: 12, oneThread, against: "NetworkKit full decode", fullAgain)
    let smooth = try Data(contentsOf: fixtures.smoothJPEG)
    let (smoothThumbnail, smoothFull) = try measurePair(iterations: 11) { try decode(smooth, maxPixelSize: 256) } and: {
        try decode(smooth)
    }
    report("smooth jpeg 12 MP → 256 px thumbnail (\(min(cores, 4)) threads)", megapixels: 12, smoothThumbnail,
           against: "NetworkKit full decode", smoothFull)
    let (smoothOneThread, smoothFullAgain) = try measurePair(iterations: 11) {
        try JPEGCodec(maxThreads: 1).decode(smooth, options: ImageDecodingOptions(maxPixelSize: 256))
    } and: { try decode(smooth) }
    report("smooth jpeg 12 MP → 256 px thumbnail (maxThreads: 1)", megapixels: 12, smoothOneThread,
           against: "NetworkKit full decode", smoothFullAgain)
}

/// Decodes through the public parser, as an app would.
private func decode(_ data: Data, maxPixelSize: Int? = nil) throws -> DecodedImage {
    try ImageParser(maxPixelSize: maxPixelSize).parse(Response(url: nil, status: 200, data: data))
}

/// The median wall time in milliseconds of `iterations` runs after one warm-up.
private func measure<T>(iterations: Int, _ body: () throws -> T) throws -> Double {
    _ = try body()
    var times: [Double] = []
    for _ in 0..<iterations {
        times.append(try milliseconds(body))
    }
    return median(times)
}

/// Median wall times of two operations measured in alternation, so a busy moment of the
/// machine falls on both rather than on one.
private func measurePair<A, B>(
    iterations: Int, _ first: () throws -> A, and second: () throws -> B
) throws -> (Double, Double) {
    _ = try first()
    _ = try second()
    var firstTimes: [Double] = []
    var secondTimes: [Double] = []
    for iteration in 0..<iterations {
        if iteration.isMultiple(of: 2) {
            firstTimes.append(try milliseconds(first))
            secondTimes.append(try milliseconds(second))
        } else {
            secondTimes.append(try milliseconds(second))
            firstTimes.append(try milliseconds(first))
        }
    }
    return (median(firstTimes), median(secondTimes))
}

private func milliseconds<T>(_ body: () throws -> T) throws -> Double {
    let start = ContinuousClock.now
    _ = try body()
    return (ContinuousClock.now - start).milliseconds
}

/// Pillow's median time, measured inside Python with `time.perf_counter` (decoding from memory).
private func pillow(_ file: URL) throws -> Double {
    let program = """
    import io, sys, time
    from PIL import Image
    data = open(sys.argv[1], "rb").read()
    times = []
    for i in range(8):
        start = time.perf_counter()
        Image.open(io.BytesIO(data)).convert("RGBA")
        times.append((time.perf_counter() - start) * 1000)
    times = sorted(times[1:])
    print(times[len(times) // 2])
    """
    let output = try runPython(program, arguments: [file.path]).trimmingCharacters(in: .whitespacesAndNewlines)
    return Double(output) ?? .nan
}

private func report(_ label: String, megapixels: Double, _ ours: Double, against name: String, _ reference: Double) {
    func timing(_ ms: Double) -> String { String(format: "%.1f ms (%.0f MP/s)", ms, megapixels / ms * 1000) }
    print("\(label): NetworkKit \(timing(ours)) vs \(name) \(timing(reference))  ratio \(String(format: "%.2f", ours / reference))")
}
