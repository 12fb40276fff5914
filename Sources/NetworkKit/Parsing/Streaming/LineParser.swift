import Foundation

/// The body's lines as text, as they arrive (log tails, line-based protocols): lines end at CR, LF
/// or CRLF, and a last line without a line end counts when the body ends as it should. A line
/// that is not UTF-8 throws a ``ParseError`` of kind `malformed`; one longer than
/// ``maxLineLength`` bytes, of kind `limit`. A multi-byte character split across chunks comes out
/// whole: a line is decoded once it is complete.
public struct LineParser: StreamParser {
    private var lines: LineSplitter
    private var lineNumber = 0

    /// A parser of lines of up to `maxLineLength` bytes (1 MiB by default).
    public init(maxLineLength: Int64 = 1 << 20) {
        lines = LineSplitter(maxLineLength: maxLineLength, parser: "lines")
    }

    /// The longest line, in bytes, that it accepts.
    public var maxLineLength: Int64 { Int64(lines.maxLineLength) }

    /// Forgets a line the last body left unfinished; lines are counted from 1 again.
    public mutating func begin(_ response: Response) throws {
        lines.reset()
        lineNumber = 0
    }

    /// The lines `chunk` completes.
    public mutating func parse(_ chunk: Data) throws -> [String] {
        var texts: [String] = []
        var splitter = lines.take()
        defer { lines = splitter }
        try splitter.forEachLine(in: chunk) { texts.append(try text(of: $0)) }
        return texts
    }

    /// The last line, if the body did not end with a line end.
    public mutating func finish() throws -> [String] {
        try lines.finish().map { line in try line.withUnsafeBytes { try text(of: $0) } }
    }

    private mutating func text(of line: UnsafeRawBufferPointer) throws -> String {
        lineNumber += 1
        guard let text = String.validatingUTF8(line.assumingMemoryBound(to: UInt8.self)) else {
            throw ParseError(parser: "lines", reason: "line \(lineNumber) is not valid UTF-8", kind: .malformed)
        }
        return text
    }
}
