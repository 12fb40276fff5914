import FixtureServer
import Foundation
import NetworkKitImage

/// The fixture server in a child process of its own (this executable with `NK_BENCH_SERVE=1`),
/// so the load run's memory figure is the client's alone.
final class LoadServer: Sendable {
    let baseURL: URL
    private let process: Process
    private let input: Pipe

    /// Starts the child and waits for the port it prints.
    init() throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.environment = ProcessInfo.processInfo.environment.merging(["NK_BENCH_SERVE": "1"]) { $1 }
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
            line.append(first)
        }
        guard let url = URL(string: String(decoding: line, as: UTF8.self)), url.port != nil else {
            process.terminate()
            throw BenchError.wrongAnswer
        }
        baseURL = url
    }

    /// The child's resident memory in bytes.
    var residentBytes: Int {
        ResidentMemory.of(processID: process.processIdentifier) ?? 0
    }

    /// Ends the child (it stops when its standard input closes).
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The child's side: serves, with a small PNG at `/blob/load.png`, until standard input closes.
    static func serve() async throws {
        let server = try await FixtureServer.start()
        var pixels = [UInt8](repeating: 0, count: 64 * 64 * 4)
        for index in pixels.indices { pixels[index] = UInt8(truncatingIfNeeded: index &* 7) | (index % 4 == 3 ? 0xFF : 0) }
        let image = try DecodedImage(width: 64, height: 64, pixels: pixels, format: .png)
        server.publish(try image.pngData(), as: "load.png", contentType: "image/png")
        FileHandle.standardOutput.write(Data((server.baseURL.absoluteString + "\n").utf8))
        await Task.detached { _ = FileHandle.standardInput.readDataToEndOfFile() }.value
        server.stop()
    }
}
