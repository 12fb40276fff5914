import ArgumentParser
import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetworkKit
import NetworkKitImage

/// `nk image URL [--max-pixel-size N] [-o out.png]`: fetch, decode, describe, optionally save.
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

    func run() async throws {
        guard let url = URL(string: url), url.scheme != nil else {
            throw ValidationError("not a URL: \(self.url)")
        }
        let parser = ImageParser(maxPixelSize: maxPixelSize)
        let timedParser = ClosureParser { response in
            let started = ContinuousClock.now
            let image = try parser.parse(response)
            return TimedImage(image: image, decodeTime: ContinuousClock.now - started)
        }
        let timed: TimedImage
        if url.isFileURL {
            timed = try timedParser.parse(Response(url: url, statusCode: 200, data: try Data(contentsOf: url)))
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
