import ArgumentParser
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
        // TODO(merge): fetch through Service.shared.send(Request(url:parser: ImageParser(...))).
        let response = try await Self.fetch(url)
        let started = ContinuousClock.now
        let image = try ImageParser(maxPixelSize: maxPixelSize).parse(response)
        let elapsed = ContinuousClock.now - started
        print(Self.describe(image, decodeTime: elapsed))
        if let output {
            try image.pngData().write(to: URL(fileURLWithPath: output))
            print("wrote \(output)")
        }
    }

    /// The body and headers of `url`, through URLSession (file URLs read directly).
    private static func fetch(_ url: URL) async throws -> Response {
        if url.isFileURL {
            return Response(url: url, statusCode: 200, data: try Data(contentsOf: url))
        }
        let (data, response) = try await URLSession.shared.data(from: url)
        guard let http = response as? HTTPURLResponse else {
            return Response(url: url, statusCode: 200, data: data)
        }
        guard (200..<300).contains(http.statusCode) else {
            throw NetworkError.httpStatus(code: http.statusCode, body: data)
        }
        var headers: [String: String] = [:]
        for case let (name as String, value as String) in http.allHeaderFields { headers[name] = value }
        return Response(url: http.url ?? url, statusCode: http.statusCode, headers: headers, data: data)
    }

    /// One line per fact: format, size, source size, frames, orientation, decode time.
    static func describe(_ image: DecodedImage, decodeTime: Duration) -> String {
        let milliseconds = Double(decodeTime.components.seconds) * 1000 + Double(decodeTime.components.attoseconds) / 1e15
        var lines = [
            "format:      \(image.format)",
            "size:        \(image.width)×\(image.height) px" + (image.scale == 1 ? "" : " @\(image.scale)x"),
        ]
        if image.isDownsampled { lines.append("source size: \(image.sourceWidth)×\(image.sourceHeight) px") }
        lines.append("frames:      \(image.frameCount)")
        lines.append("orientation: \(image.orientation.rawValue) (\(image.orientation), reported, not applied)")
        lines.append(String(format: "decode time: %.1f ms", milliseconds))
        return lines.joined(separator: "\n")
    }
}
