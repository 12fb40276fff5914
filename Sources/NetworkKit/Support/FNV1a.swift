/// FNV-1a, 64 bits: a fast, stable hash for file names (partial downloads, cache entries).
/// Not a security measure: whoever relies on it for identity also compares the full key.
enum FNV1a {
    /// The hash of `bytes`, continuing from `hash` (the offset basis by default).
    static func hash<Bytes: Sequence>(_ bytes: Bytes, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64
    where Bytes.Element == UInt8 {
        var hash = hash
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The hash of `text`'s UTF-8 bytes as lowercase hex.
    static func hex(_ text: String) -> String {
        String(hash(text.utf8), radix: 16)
    }
}
