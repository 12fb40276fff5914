import Foundation

/// Where the tests find the tools that `scripts/bootstrap` and `scripts/har-peer` install under
/// `.build/peers` (a test installs nothing), and the peers' scripts beside the tests.
enum PeerTools {
    /// The package root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The executable at `path` under the package root, or nil when it is not there.
    static func executable(_ path: String) -> URL? {
        let url = root.appendingPathComponent(path)
        return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
    }

    /// The peer script `name`, in `Tests/NetworkKitTests/Peers`.
    static func script(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/\(name)")
    }
}
