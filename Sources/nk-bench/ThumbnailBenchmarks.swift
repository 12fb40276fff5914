import Dispatch
import FixtureServer
import Foundation
import NetworkKit
import NetworkKitImage

/// `NK_BENCH_ONLY=thumbnails`: what thumbnails cost under load and for huge files (issue #12).
/// - 32 thumbnails of a 12 MP baseline JPEG parsed at once on `ParsingQueue.shared`, as 32
///   image requests would be: wall time and CPU time (user + system) of the batch, the default
///   codec against `JPEGCodec(maxThreads: 1)`.
/// - A 64 px thumbnail of a 10000×10000 PNG against its full decode: time and peak RSS growth.
/// Needs only `cjpeg` (apt package libjpeg-turbo-progs), not Pillow.
enum ThumbnailBenchmarks {
    static func run() throws {
        try concurrentJPEGThumbnails()
        try hugePNGThumbnail()
    }

    private static func concurrentJPEGThumbnails() throws {
        let jpeg = try grainyJPEG()
        let single = ImageCodecRegistry()
        single.register(JPEGCodec(maxThreads: 1), forMIMETypes: ["image/jpeg"])
        // The rule before the fallback: two threads for every large file, however busy.
        let alwaysSplit = ImageCodecRegistry()
        alwaysSplit.register(ImageFuzzHooks.jpegCodec(eighthScaleThreads: 2), forMIMETypes: ["image/jpeg"])
        let parsers = [("default JPEGCodec()", ImageParser(maxPixelSize: 256)),
                       ("JPEGCodec(maxThreads: 1)", ImageParser(maxPixelSize: 256, registry: single)),
                       ("always 2 threads", ImageParser(maxPixelSize: 256, registry: alwaysSplit))]
        let response = Response(url: nil, status: 200, headerFields: [.contentType: "image/jpeg"], data: jpeg)
        print("thumbnails: \(jpeg.count / 1024) KB 12 MP baseline JPEG → 256 px, \(ProcessInfo.processInfo.activeProcessorCount) cores")
        for (count, rounds) in [(1, 15), (32, 5)] {
            var results = [[(wall: Double, cpu: Double)]](repeating: [], count: parsers.count)
            for round in 0..<rounds + 1 {
                for offset in 0..<parsers.count {
                    let index = (round + offset) % parsers.count
                    let result = try batch(count, parsers[index].1, response)
                    if round > 0 { results[index].append(result) } // round 0 warms up
                }
            }
            for (index, (name, _)) in parsers.enumerated() {
                let wall = median(results[index].map(\.wall)), cpu = median(results[index].map(\.cpu))
                print(String(format: "  %2d at once, %@: wall %.1f ms, CPU %.1f ms (median of %d)", count, name, wall, cpu, rounds))
            }
            let ratio = median(results[0].map(\.wall)) / median(results[1].map(\.wall))
            let split = median(results[0].map(\.wall)) / median(results[2].map(\.wall))
            print(String(format: "  %2d at once: wall ratio default / maxThreads 1 = %.2f, default / always 2 threads = %.2f",
                         count, ratio, split))
        }
    }

    /// Parses `count` copies at once on the parsing queue; wall and CPU milliseconds.
    private static func batch(_ count: Int, _ parser: ImageParser, _ response: Response) throws -> (wall: Double, cpu: Double) {
        let failures = Protected(0)
        let group = DispatchGroup()
        let cpuBefore = cpuMilliseconds()
        let start = ContinuousClock.now
        for _ in 0..<count {
            ParsingQueue.shared.async(group: group) {
                if (try? parser.parse(response)) == nil { failures.withLock { $0 += 1 } }
            }
        }
        group.wait()
        let wall = (ContinuousClock.now - start).milliseconds
        guard failures.snapshot == 0 else { throw BenchError.wrongAnswer }
        return (wall, cpuMilliseconds() - cpuBefore)
    }

    /// User + system CPU time of the process so far.
    private static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }

    private static func hugePNGThumbnail() throws {
        let size = 10_000
        guard let png = LargePNG.gradient(width: size, height: size) else { throw BenchError.wrongAnswer }
        print("huge PNG: \(size)×\(size), \(png.count / 1024) KB")
        let response = Response(url: nil, status: 200, data: png)
        for (name, parser) in [("64 px thumbnail", ImageParser(maxPixelSize: 64)), ("full decode", ImageParser())] {
            var times: [Double] = [], cpu: [Double] = [], growths: [Int] = []
            for _ in 0..<3 {
                ResidentMemory.resetPeak()
                let before = ResidentMemory.current ?? 0
                let (start, cpuStart) = (ContinuousClock.now, cpuMilliseconds())
                _ = try parser.parse(response)
                times.append((ContinuousClock.now - start).milliseconds)
                cpu.append(cpuMilliseconds() - cpuStart)
                growths.append((ResidentMemory.peak ?? 0) - before)
            }
            print(String(format: "  %@: wall %.0f ms, CPU %.0f ms, peak RSS +%d MB (median of 3)", name, median(times),
                         median(cpu), growths.sorted()[1] >> 20))
        }
    }

    /// A 4000×3000 photo-like JPEG (smooth colour fields with grain), made once with cjpeg at
    /// quality 90, baseline or (`-progressive`: libjpeg-turbo's `jpeg_simple_progression`) progressive.
    static func grainyJPEG(progressive: Bool = false) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("networkkit-bench-thumbnails-v1")
        let jpeg = directory.appendingPathComponent(progressive ? "grainy-12mp-progressive.jpg" : "grainy-12mp.jpg")
        if let data = try? Data(contentsOf: jpeg) { return data }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (width, height) = (4000, 3000)
        var random = SeededGenerator(seed: 42)
        var ppm = Data("P6\n\(width) \(height)\n255\n".utf8)
        var row = [UInt8](repeating: 0, count: width * 3)
        for y in 0..<height {
            for x in 0..<width {
                let grain = Int.random(in: -24...24, using: &random)
                row[x * 3] = UInt8(clamping: 128 + Int(100 * sin(Double(x) / 300)) + grain)
                row[x * 3 + 1] = UInt8(clamping: 128 + Int(90 * cos(Double(y) / 250)) + grain)
                row[x * 3 + 2] = UInt8(clamping: (x + y) / 28 + grain)
            }
            ppm.append(contentsOf: row)
        }
        let source = directory.appendingPathComponent("grainy-12mp.ppm")
        try ppm.write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        try toolOutput(["cjpeg", "-quality", "90"] + (progressive ? ["-progressive"] : []) + ["-outfile", jpeg.path, source.path])
        return try Data(contentsOf: jpeg)
    }
}
