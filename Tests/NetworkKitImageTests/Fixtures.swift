import FixtureServer
import Foundation
import NetworkKit
@testable import NetworkKitImage

/// One image fixture and what decoding it must give.
struct Fixture: Sendable, CustomStringConvertible {
    let name: String
    let file: String
    let mime: String
    /// The RGBA8 rows decoding must give (a file in the fixture set), if compared.
    var reference: String?
    let width: Int
    let height: Int
    var sourceWidth: Int
    var sourceHeight: Int
    /// Largest allowed difference per channel against the reference.
    var tolerance = 0
    var orientation = 1
    var frameCount = 1
    var maxPixelSize: Int?

    init(name: String, file: String, mime: String, reference: String?, width: Int, height: Int,
         sourceWidth: Int? = nil, sourceHeight: Int? = nil, tolerance: Int = 0, orientation: Int = 1,
         frameCount: Int = 1, maxPixelSize: Int? = nil) {
        self.name = name
        self.file = file
        self.mime = mime
        self.reference = reference
        self.width = width
        self.height = height
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
        self.tolerance = tolerance
        self.orientation = orientation
        self.frameCount = frameCount
        self.maxPixelSize = maxPixelSize
    }

    var description: String { name }
}

/// Why the fixtures could not be made: a missing tool, say. Every test that needs them fails
/// with this message; nothing stops the test process.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

/// Fixture files by name, and the fixtures that use them.
struct FixtureSet: Sendable {
    var files: [String: Data] = [:]
    var fixtures: [Fixture] = []
}

/// The image fixtures, made once per test process and held in memory.
///
/// Most are made here: PNGs by `PNGWriter` from known pixels (which are their reference),
/// JPEGs and WebPs by `cjpeg`/`cwebp` with `djpeg`/`dwebp` decoding the reference (apt packages
/// `libjpeg-turbo-progs` and `webp`; `./scripts/test` installs them). The few that need Pillow to
/// make (CMYK JPEG, animated WebP) are committed in `Fixtures/` with their reference pixels, and
/// `Fixtures/make_pillow_fixtures.py` makes them again. The working directory the tools write
/// into is removed before the tests see the data.
enum Fixtures {
    private static let made: Result<FixtureSet, FixtureError> = {
        do {
            return .success(try FixtureMaker.makeAll())
        } catch let error as FixtureError {
            return .failure(error)
        } catch {
            return .failure(FixtureError(description: "could not make the image fixtures: \(error)"))
        }
    }()

    /// Every fixture with an expected decode.
    static var all: [Fixture] {
        get throws { try made.get().fixtures }
    }

    static func named(_ name: String) throws -> Fixture? {
        try all.first { $0.name == name }
    }

    /// The bytes of a fixture file (image or reference).
    static func data(_ file: String) throws -> Data {
        guard let data = try made.get().files[file] else {
            throw FixtureError(description: "no fixture file named \(file)")
        }
        return data
    }

    /// The JPEG layouts the 1/8-scale path must take, and two it must leave to libjpeg.
    static let eighthLayouts: [(name: String, arguments: [String])] = [
        ("420", []), ("444", ["-sample", "1x1"]), ("422", ["-sample", "2x1"]), ("440", ["-sample", "1x2"]),
        ("411", ["-sample", "4x1"]), ("mixed", ["-sample", "2x2,1x1,2x2"]), ("restart1", ["-restart", "1"]),
        ("restart2b", ["-sample", "2x1", "-restart", "2B"]), ("rgb", ["-rgb"]), ("gray", ["-grayscale"]),
        ("gray_restart", ["-grayscale", "-restart", "1"]), ("q100", ["-quality", "100"]),
        ("q5", ["-quality", "5"]), ("optimized", ["-optimize"]),
        ("progressive", ["-progressive"]), ("arithmetic", ["-arithmetic"]),
    ]
    static let eighthSizes = [(9, 7), (64, 48), (203, 157), (640, 480)]
}

/// The largest per-byte difference between two equally long buffers, or nil when lengths differ.
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
    guard a.count == b.count else { return nil }
    var worst = 0
    for index in a.indices { worst = max(worst, abs(Int(a[index]) - Int(b[index]))) }
    return worst
}
