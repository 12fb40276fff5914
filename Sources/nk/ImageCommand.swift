import ArgumentParser
import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetworkKit
import NetworkKitImage

/// `nk image URL [--max-pixel-size N] [-o out.png] [--previews DIR]`: fetch, decode, describe,
/// optionally save; with `--previews`, every image as the body arrives.
struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Fetch an image, decode it with NetworkKitImage and describe it."
    )

    @Argument(help: "The image URL (http, https or file).")
    var url: String

    @Option(name: .long, help: "Decode a thumbnail whose longest side is at most N pixels.")
    var maxPixelSize: Int?

    @Option(name: [.short, .long], help: "Write the decoded pixels as a PNG file.")
    var output: String?

    @Option(name: .long,
            help: "Decode the image as it arrives: write each preview and the final image as PNG into DIR (preview-1.png …, final.png), one line per image as it is made.")
    var previews: String?

    func run() async throws {
        guard let url = URL(string: url), url.scheme != nil else {
            throw ValidationError("not a URL: \(self.url)")
        }
        if let previews {
            guard !url.isFileURL else { throw ValidationError("--previews needs an http or https URL") }
            return try await writePreviews(of: url, into: URL(fileURLWithPath: previews))
        }
        let parser = ImageParser(maxPixelSize: maxPixelSize)
        let timedParser = ClosureParser { response in
            let started = ContinuousClock.now
            let image = try parser.parse(response)
            return TimedImage(image: image, decodeTime: ContinuousClock.now - started)
        }
        let timed: TimedImage
        if url.isFileURL {
            timed = try timedParser.parse(Response(url: url, status: 200, data: try Data(contentsOf: url)))
        } else {
            do {
                timed = try await Service.shared.send(Request(url: self.url, parser: timedParser))
            } catch {
                FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }
        let image = timed.image
        let elapsed = timed.decodeTime
        print(Self.describe(image, decodeTime: elapsed))
        if let output {
            try image.pngData().write(to: URL(fileURLWithPath: output))
            print("wrote \(output)")
        }
    }

    /// `--previews DIR`: each image of the stream written as it arrives; a body cut short keeps
    /// the previews written so far and exits 1 with the kit's words.
    private func writePreviews(of url: URL, into directory: URL) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let parser = IncrementalImageParser(maxPixelSize: maxPixelSize, previews: ImagePreviewPolicy(sources: .all))
        let request = StreamRequest(url: url, parser: parser)
        var count = 0
        do {
            for try await item in Service.shared.stream(request) {
                count += item.isFinal ? 0 : 1
                let name = item.isFinal ? "final.png" : "preview-\(count).png"
                try item.image.pngData().write(to: directory.appendingPathComponent(name))
                print("\(name): \(item.image.width)×\(item.image.height) px, \(Self.describe(item.stage)), "
                      + "after \(item.bytesReceived) bytes")
            }
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// A stage in words.
    static func describe(_ stage: ImageStreamStage) -> String {
        switch stage {
        case .scan(let n): "scan \(n)"
        case .pass(let n): "Adam7 pass \(n)"
        case .rows(let n): "top \(n) rows"
        case .final: "final"
        }
    }

    /// One line per fact: format, size, source size, frames, orientation, decode time.
    static func describe(_ image: DecodedImage, decodeTime: Duration) -> String {
        var lines = [
            "format:      \(image.format)",
            "size:        \(image.width)×\(image.height) px" + (image.scale == 1 ? "" : " @\(image.scale)x"),
        ]
        if image.isDownsampled { lines.append("source size: \(image.sourceWidth)×\(image.sourceHeight) px") }
        lines.append("frames:      \(image.frameCount)")
        lines.append("orientation: \(image.orientation.rawValue) (\(image.orientation), reported, not applied)")
        lines.append(String(format: "decode time: %.1f ms", decodeTime.milliseconds))
        return lines.joined(separator: "\n")
    }
}

/// A decoded image and how long the decode took on the parsing queue.
struct TimedImage: Sendable {
    var image: DecodedImage
    var decodeTime: Duration
}
