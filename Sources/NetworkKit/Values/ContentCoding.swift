import Foundation

/// An HTTP `Content-Encoding` the kit can decode and produce. Every one is decoded with the same
/// limit on what it decodes to (``ServiceConfiguration/maxDecompressedBytes``), on every path:
/// bodies in memory, downloads to disk and streams. `allCases` lists them in a browser's order of
/// preference (`gzip, deflate, br, zstd`), the order requests offer them in by default.
public enum ContentCoding: String, Sendable, CaseIterable {
    /// RFC 1952 gzip: a header, raw deflate data and a CRC-32 trailer (`windowBits` 16 + 15).
    case gzip
    /// HTTP "deflate": zlib-wrapped deflate (RFC 1950). Many servers send raw deflate
    /// (RFC 1951) under this name instead, so decoding accepts both.
    case deflate
    /// Brotli (RFC 7932), through libbrotli: what browsers and CDNs send first to a client that
    /// offers it.
    case brotli = "br"
    /// Zstandard (RFC 8878 and RFC 9659), through libzstd. A frame that asks for a window
    /// larger than 8 MiB is refused, as RFC 9659 lets a decoder do.
    case zstd

    /// The coding named by a `Content-Encoding` value (`gzip`, `x-gzip`, `deflate`, `br`,
    /// `zstd`), if it is one of these.
    public init?(headerValue: String) {
        switch headerValue.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "br": self = .brotli
        case "zstd": self = .zstd
        default: return nil
        }
    }

    /// The coding's name in messages: `gzip`, `deflate`, `brotli`, `zstd`.
    public var name: String {
        self == .brotli ? "brotli" : rawValue
    }

    /// The compression levels the coding takes: 0…9 for gzip and deflate (zlib), 0…11 for
    /// brotli, 1…19 for zstd (the levels whose window every HTTP decoder reads).
    public var levels: ClosedRange<Int> {
        switch self {
        case .gzip, .deflate: 0...9
        case .brotli: 0...11
        case .zstd: 1...19
        }
    }
}
