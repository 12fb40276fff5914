import FixtureServer
import Foundation

/// The files of the image stream tests, made once per test process with `cjpeg` and `jpegtran`
/// (apt package `libjpeg-turbo-progs`) and `cwebp` (apt package `webp`) in a working directory that is removed before the tests
/// see the data. A missing tool fails every test that needs the files, with a message that
/// names the package.
enum StreamImageFixtures {
    /// Progressive and baseline JPEGs of a 320×240 test picture, and variants.
    static let names = ["progressive.jpg", "baseline.jpg", "progressive_gray.jpg", "progressive_exif6.jpg",
                        "progressive_cmyk.jpg", "progressive_restart.jpg", "photo.webp", "lossless.webp", "arithmetic.jpg"]

    private static let made: Result<[String: Data], FixtureError> = {
        do {
            return .success(try make())
        } catch let error as FixtureError {
            return .failure(error)
        } catch {
            return .failure(FixtureError(description: "could not make the image stream fixtures: \(error)"))
        }
    }()

    /// The bytes of fixture `name`.
    static func data(_ name: String) throws -> Data {
        guard let data = try made.get()[name] else { throw FixtureError(description: "no stream fixture named \(name)") }
        return data
    }

    private static func make() throws -> [String: Data] {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("networkkit-stream-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ arguments: [String]) throws {
            let status = runTool(arguments)
            guard status != 0 else { return }
            let reason = status == 127 || status == -1 ? "is not installed" : "failed with exit status \(status)"
            let package = arguments[0] == "cwebp" ? "webp" : "libjpeg-turbo-progs"
            throw FixtureError(description: "`\(arguments.joined(separator: " "))`: \(arguments[0]) \(reason). "
                + "The image stream tests need it to make their files (apt package \(package)).")
        }
        try TestImage(width: 320, height: 240).ppm.write(to: URL(fileURLWithPath: path("source.ppm")))
        try run(["cjpeg", "-quality", "85", "-progressive", "-outfile", path("progressive.jpg"), path("source.ppm")])
        try run(["cjpeg", "-quality", "85", "-outfile", path("baseline.jpg"), path("source.ppm")])
        try run(["cjpeg", "-quality", "85", "-progressive", "-grayscale", "-outfile", path("progressive_gray.jpg"), path("source.ppm")])
        try run(["cjpeg", "-quality", "85", "-progressive", "-restart", "1", "-outfile", path("progressive_restart.jpg"),
                 path("source.ppm")])
        try run(["cjpeg", "-quality", "85", "-progressive", "-arithmetic", "-outfile", path("arithmetic.jpg"), path("source.ppm")])
        try run(["cwebp", "-quiet", "-q", "80", path("source.ppm"), "-o", path("photo.webp")])
        try run(["cwebp", "-quiet", "-lossless", path("source.ppm"), "-o", path("lossless.webp")])
        var files: [String: Data] = [:]
        for name in ["progressive.jpg", "baseline.jpg", "progressive_gray.jpg", "progressive_restart.jpg", "photo.webp",
                     "lossless.webp", "arithmetic.jpg"] {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        }
        files["progressive_exif6.jpg"] = FixtureMaker.insertingEXIF(orientation: 6, into: files["progressive.jpg"] ?? Data())
        // The committed CMYK file (Adobe, inverted), made progressive without recompressing it.
        let cmyk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/jpeg_cmyk.jpg")
        try run(["jpegtran", "-progressive", "-outfile", path("progressive_cmyk.jpg"), cmyk.path])
        files["progressive_cmyk.jpg"] = try Data(contentsOf: URL(fileURLWithPath: path("progressive_cmyk.jpg")))
        return files
    }
}
