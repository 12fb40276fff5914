import Foundation

/// The body's bytes as they arrive, one item per chunk (inflated when content-encoded): for
/// printing or saving a body as it comes.
public struct ByteChunkParser: StreamParser {
    /// Creates the parser.
    public init() {}

    /// The chunk itself.
    public mutating func parse(_ chunk: Data) throws -> [Data] {
        [chunk]
    }

    /// Nothing is held back.
    public mutating func finish() throws -> [Data] {
        []
    }
}
