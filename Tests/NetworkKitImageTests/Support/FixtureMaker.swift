import FixtureServer
import Foundation

/// Makes the image fixture set in a working directory that it removes when done. See `Fixtures`.
struct FixtureMaker {
    let directory: URL
    var set = FixtureSet()

    static func makeAll() throws -> FixtureSet {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("networkkit-image-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var maker = FixtureMaker(directory: directory)
        try maker.makePNGs()
        try maker.makeJPEGs()
        try maker.makeEighthScaleJPEGs()
        try maker.makeProgressiveJPEGs()
        try maker.makeWebPs()
        try maker.addCommitted()
        return maker.set
    }

    // MARK: - Files and tools

    /// Keeps `data` as fixture file `file`, and writes it where the tools can read it.
    mutating func keep(_ file: String, _ data: Data) throws {
        set.files[file] = data
        try data.write(to: directory.appendingPathComponent(file))
    }

    /// Keeps the file a tool wrote.
    mutating func keepWritten(_ file: String) throws {
        set.files[file] = try Data(contentsOf: directory.appendingPathComponent(file))
    }

    func path(_ file: String) -> String {
        directory.appendingPathComponent(file).path
    }

    /// Runs a reference tool, with a message saying what to install when it is missing.
    func run(_ arguments: [String]) throws {
        let status = runTool(arguments)
        guard status != 0 else { return }
        let tool = arguments.first ?? ""
        let package = ["cjpeg": "libjpeg-turbo-progs", "djpeg": "libjpeg-turbo-progs"][tool] ?? "webp"
        let reason = status == 127 || status == -1 ? "is not installed" : "failed with exit status \(status)"
        let command = arguments.joined(separator: " ").replacingOccurrences(of: directory.path + "/", with: "")
        throw FixtureError(description: "`\(command)`: \(tool) \(reason). "
            + "The image tests need it to make their fixtures: run `./scripts/test`, which installs it "
            + "(apt package \(package)).")
    }

    /// Where a reference decoder writes `name`'s NetPBM file.
    func referenceOutput(_ name: String) -> String {
        path(name + ".pnm")
    }

    /// Runs a decoder that writes a NetPBM file to `referenceOutput(name)`, and keeps its pixels
    /// as `<name>.rgba`.
    mutating func reference(_ name: String, from arguments: [String]) throws -> TestImage {
        let output = referenceOutput(name)
        try run(arguments)
        let image = try NetPBM.rgba(Data(contentsOf: URL(fileURLWithPath: output)))
        set.files[name + ".rgba"] = Data(image.rgba)
        return image
    }

    /// Adds a fixture whose reference is `expected`, kept as `<name>.rgba`.
    mutating func add(_ fixture: Fixture, expected: [UInt8]) {
        var fixture = fixture
        fixture.reference = fixture.name + ".rgba"
        set.files[fixture.name + ".rgba"] = Data(expected)
        set.fixtures.append(fixture)
    }

    // MARK: - Committed fixtures

    /// The fixtures that need Pillow to make, committed with their reference pixels.
    mutating func addCommitted() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        let committed = [
            // CMYK with an Adobe marker (inverted values): Pillow's decode, within rounding.
            Fixture(name: "jpeg_cmyk", file: "jpeg_cmyk.jpg", mime: "image/jpeg", reference: "jpeg_cmyk.rgba",
                    width: 33, height: 25, tolerance: 2),
            // Three full-canvas lossless frames: the first frame is the reference.
            Fixture(name: "webp_animated", file: "webp_animated.webp", mime: "image/webp",
                    reference: "webp_animated.rgba", width: 24, height: 18, frameCount: 3),
            // A first frame smaller than the canvas, at an offset: the rest of the canvas is transparent.
            Fixture(name: "webp_animated_offset", file: "webp_animated_offset.webp", mime: "image/webp",
                    reference: "webp_animated_offset.rgba", width: 40, height: 30, frameCount: 2),
        ]
        for fixture in committed {
            for file in [fixture.file, fixture.reference].compactMap({ $0 }) {
                let url = folder.appendingPathComponent(file)
                guard let data = try? Data(contentsOf: url) else {
                    throw FixtureError(description: "the committed fixture \(url.path) is missing")
                }
                set.files[file] = data
            }
            set.fixtures.append(fixture)
        }
    }
}
