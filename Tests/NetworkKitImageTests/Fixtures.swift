import Foundation
import FixtureServer
import NetworkKit
@testable import NetworkKitImage

/// One fixture from `make_fixtures.py`'s manifest.
struct Fixture: Decodable, Sendable, CustomStringConvertible {
    let name: String
    let file: String
    let mime: String
    /// Raw RGBA8 rows from the reference decoder (Pillow, djpeg or dwebp), if compared.
    let reference: String?
    let width: Int
    let height: Int
    let sourceWidth: Int
    let sourceHeight: Int
    /// Largest allowed difference per channel against the reference.
    let tolerance: Int
    let orientation: Int
    let frameCount: Int
    let maxPixelSize: Int?

    var description: String { name }
}

/// Fixtures generated once per test process by python3 + Pillow, cjpeg, cwebp, djpeg and dwebp.
enum Fixtures {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("networkkit-image-fixtures-\(ProcessInfo.processInfo.processIdentifier)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("make_fixtures.py")
        let status = run(["python3", script.path, directory.path])
        precondition(status == 0, "make_fixtures.py failed (needs python3 + Pillow, cjpeg, djpeg, cwebp, dwebp)")
        return directory
    }()

    static let all: [Fixture] = manifest("manifest.json")

    /// The list `make_fixtures.py` wrote to `file`.
    static func manifest<Entry: Decodable>(_ file: String) -> [Entry] {
        let manifest = directory.appendingPathComponent(file)
        guard let data = try? Data(contentsOf: manifest),
              let entries = try? JSONDecoder().decode([Entry].self, from: data) else {
            preconditionFailure("cannot read \(manifest.path)")
        }
        return entries
    }

    static func named(_ name: String) -> Fixture? {
        all.first { $0.name == name }
    }

    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(file))
    }

    @discardableResult
    static func run(_ arguments: [String]) -> Int32 {
        runTool(arguments)
    }
}

/// The largest per-byte difference between two equally long buffers, or nil when lengths differ.
func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
    guard a.count == b.count else { return nil }
    var worst = 0
    for index in a.indices { worst = max(worst, abs(Int(a[index]) - Int(b[index]))) }
    return worst
}
