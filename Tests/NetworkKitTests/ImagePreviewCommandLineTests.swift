import Foundation
import FixtureServer
import Testing

/// `nk image URL --previews DIR` against the fixture server's image drip route.
@Suite("nk image --previews")
struct ImagePreviewCommandLineTests {
    /// A directory of its own under the temporary directory, removed by the caller.
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("nk-previews-\(UUID().uuidString)")
    }

    @Test("each preview and the final image as PNG files, a line each with the bytes that had arrived")
    func previews() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CommandLine_.nk(["image", server.url("/images/drip/progressive.jpg?chunk=1024&interval=2"),
                                             "--previews", directory.path])
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count >= 2, "\(run.output)")
        #expect(lines.first?.hasPrefix("preview-1.png: ") == true, "\(run.output)")
        // A preview comes after each read that completed a scan: which scans depends on how the
        // chunks happened to arrive (several at once on a busy machine), but they only grow.
        let scans = lines.dropLast().compactMap { line in
            line.split(separator: ",").first { $0.contains("scan ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect(scans.count == lines.count - 1 && scans == scans.sorted() && Set(scans).count == scans.count, "\(run.output)")
        #expect(lines.last?.hasPrefix("final.png: ") == true, "\(run.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.count == lines.count)
        #expect(files.contains("final.png") && files.contains("preview-1.png"))
        // The bytes that had arrived grow, and the final image had them all.
        let counts = lines.compactMap { $0.split(separator: " ").dropLast().last.flatMap { Int($0) } }
        #expect(counts == counts.sorted() && counts.count == lines.count, "\(counts)")
    }

    @Test("a body cut short keeps the previews written and exits 1 with the kit's words")
    func cut() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await CommandLine_.nk(["image", server.url("/images/drip/progressive.jpg?chunk=1024&interval=1&cut=6000"),
                                             "--previews", directory.path])
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("nk: "), "\(run.errors)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains("final.png"))
        #expect(files.contains("preview-1.png"), "\(files) \(run.output)")
    }
}
