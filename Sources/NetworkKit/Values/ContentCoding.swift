import Foundation

/// An HTTP `Content-Encoding` the kit can decode and produce.
public enum ContentCoding: String, Sendable {
    /// RFC 1952 gzip: a header, raw deflate data and a CRC-32 trailer (`windowBits` 16 + 15).
    case gzip
    /// HTTP "deflate": zlib-wrapped deflate (RFC 1950). Many servers send raw deflate
    /// (RFC 1951) under this name instead, so decoding accepts both.
    case deflate

    /// The coding named by a `Content-Encoding` value (`gzip`, `x-gzip`, `deflate`), if it is one of these.
    public init?(headerValue: String) {
        switch headerValue.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        default: return nil
        }
    }
}
