import CZlib
import Foundation

/// zlib's CRC-32, for cache file checksums and body digests.
enum CRC32 {
    /// The CRC-32 of `bytes`.
    static func checksum(_ bytes: Data) -> UInt32 {
        bytes.withUnsafeBytes { raw -> UInt32 in
            guard let base = raw.bindMemory(to: Bytef.self).baseAddress else { return 0 }
            return UInt32(truncatingIfNeeded: crc32_z(0, base, z_size_t(raw.count)))
        }
    }
}
