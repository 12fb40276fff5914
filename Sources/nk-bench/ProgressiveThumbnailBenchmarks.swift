import Foundation
import NetworkKitImage

/// `NK_BENCH_ONLY=progressive`: a 256 px thumbnail of a 12 MP progressive JPEG (cjpeg
/// `-progressive`, libjpeg-turbo's `jpeg_simple_progression`) against its full decode, beside the
/// same for the baseline file and for a codec that reads every progressive scan (the thumbnail
/// path before scans were skipped). Each figure is the median of `NK_BENCH_ROUNDS` (11) rounds
/// that alternate the decodes, after one warm-up round; ratios are thumbnail / full decode.
/// Needs only `cjpeg` (apt package libjpeg-turbo-progs).
enum ProgressiveThumbnailBenchmarks {
    static func run() throws {
        let rounds = ProcessInfo.processInfo.environment["NK_BENCH_ROUNDS"].flatMap(Int.init) ?? 11
        let progressive = try ThumbnailBenchmarks.grainyJPEG(progressive: true)
        let baseline = try ThumbnailBenchmarks.grainyJPEG()
        let thumbnail = ImageDecodingOptions(maxPixelSize: 256), full = ImageDecodingOptions()
        let codec = JPEGCodec(), everyScan = ImageFuzzHooks.jpegCodecReadingEveryScan()
        let cases: [(name: String, data: Data, codec: JPEGCodec, options: ImageDecodingOptions)] = [
            ("progressive, 256 px thumbnail", progressive, codec, thumbnail),
            ("progressive, 256 px reading every scan", progressive, everyScan, thumbnail),
            ("progressive, full decode", progressive, codec, full),
            ("baseline, 256 px thumbnail", baseline, codec, thumbnail),
            ("baseline, full decode", baseline, codec, full),
        ]
        print("progressive thumbnails: 4000×3000, progressive \(progressive.count / 1024) KB, baseline \(baseline.count / 1024) KB, "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores, median of \(rounds) rounds")
        var times = [[Double]](repeating: [], count: cases.count)
        for round in 0...rounds {
            for offset in cases.indices {
                let index = (round + offset) % cases.count
                let item = cases[index]
                let start = ContinuousClock.now
                let image = try item.codec.decode(item.data, options: item.options)
                let elapsed = (ContinuousClock.now - start).milliseconds
                guard image.sourceWidth == 4000, max(image.width, image.height) == (item.options.maxPixelSize ?? 4000) else {
                    throw BenchError.wrongAnswer
                }
                if round > 0 { times[index].append(elapsed) } // round 0 warms up
            }
        }
        let medians = times.map(median)
        for (index, item) in cases.enumerated() {
            print(String(format: "  %@: %.1f ms", item.name, medians[index]))
        }
        print(String(format: "  thumbnail / full decode: progressive %.3f (reading every scan %.3f), baseline %.3f",
                     medians[0] / medians[2], medians[1] / medians[2], medians[3] / medians[4]))
    }
}
