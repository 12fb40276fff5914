import Foundation
import NetworkKit
import NetworkKitImage

/// `NK_BENCH_ONLY=previews`: a 12 MP progressive JPEG (cjpeg `-progressive`, libjpeg-turbo's
/// `jpeg_simple_progression`) fed in 16 KiB chunks to `IncrementalImageParser`, as a stream
/// delivers it: how many of its bytes had arrived at the first preview, and the CPU time of the
/// stream with a preview after every scan, after the first scan only and with none, each against
/// a plain whole-body decode of the same bytes (median of `NK_BENCH_ROUNDS`, 7, alternating).
/// Previews are at most 256 px, the policy's default.
enum ImagePreviewBenchmarks {
    static func run() throws {
        let rounds = ProcessInfo.processInfo.environment["NK_BENCH_ROUNDS"].flatMap(Int.init) ?? 7
        let data = try ThumbnailBenchmarks.grainyJPEG(progressive: true)
        let chunk = 16 * 1024
        let policies: [(name: String, policy: ImagePreviewPolicy)] = [
            ("previews after every scan", ImagePreviewPolicy()),
            ("a preview after the first scan only", ImagePreviewPolicy(cadence: .firstOnly)),
            ("no previews", .none),
        ]
        var first: (bytes: Int64, stage: ImageStreamStage)?
        var times = [[Double]](repeating: [], count: policies.count + 1)
        for round in 0...rounds {
            for offset in 0...policies.count {
                let index = (round + offset) % (policies.count + 1)
                let started = cpuTime()
                if index == policies.count {
                    _ = try JPEGCodec().decode(data, options: ImageDecodingOptions())
                } else {
                    let items = try feed(data, chunk: chunk, policy: policies[index].policy)
                    guard items.last?.isFinal == true else { throw BenchError.wrongAnswer }
                    if index == 0, let preview = items.first, !preview.isFinal {
                        first = (preview.bytesReceived, preview.stage)
                    }
                }
                if round > 0 { times[index].append(cpuTime() - started) }   // round 0 warms up
            }
        }
        let medians = times.map(median)
        let whole = medians[policies.count]
        print("image previews: 4000×3000 progressive JPEG, \(data.count / 1024) KB in \(chunk / 1024) KiB chunks, "
              + "CPU time, median of \(rounds) rounds")
        if let first {
            print(String(format: "  first preview (%@) after %d of %d bytes: %.1f %% (bound 20 %%)", "\(first.stage)", first.bytes,
                         data.count, 100 * Double(first.bytes) / Double(data.count)))
        }
        print(String(format: "  whole-body decode: %.1f ms", whole))
        for (index, item) in policies.enumerated() {
            print(String(format: "  stream, %@: %.1f ms, %.2f× the whole-body decode%@", item.name, medians[index],
                         medians[index] / whole, index == 0 ? " (bound 1.5)" : ""))
        }
    }

    /// The items of `data` fed to a parser with `policy` in pieces of `chunk` bytes.
    static func feed(_ data: Data, chunk: Int, policy: ImagePreviewPolicy) throws -> [ImageStreamItem] {
        var parser = IncrementalImageParser(previews: policy)
        try parser.begin(Response(url: URL(string: "http://127.0.0.1/image.jpg"), status: 200,
                                  headerFields: [.contentType: "image/jpeg"], data: Data()))
        var items: [ImageStreamItem] = []
        var start = data.startIndex
        while start < data.endIndex {
            let end = min(start + chunk, data.endIndex)
            items += try parser.parse(data.subdata(in: start..<end))
            start = end
        }
        return try items + parser.finish()
    }

    /// This process's CPU time so far, in milliseconds.
    static func cpuTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }
}
