import Foundation

/// Splits a body into lines as its chunks arrive: a line ends at CR, LF or CRLF, also when the CR
/// ends one chunk and the LF begins the next. The line ends are not part of the lines. A line
/// longer than ``maxLineLength`` bytes throws a ``ParseError`` of kind `limit`, so a body without
/// line ends cannot make it hold more than that.
package struct LineSplitter: Sendable {
    /// The longest line, in bytes, that it accepts.
    package let maxLineLength: Int
    /// The unfinished line the last chunk ended with.
    private var partial: [UInt8] = []
    /// True when the last chunk ended with CR: an LF that begins the next one ends no line.
    private var skipsLeadingLF = false
    /// The parser its limit error names.
    private let parser: String

    /// A splitter that accepts lines of up to `maxLineLength` bytes (1 MiB by default).
    package init(maxLineLength: Int = 1 << 20) {
        self.init(maxLineLength: Int64(maxLineLength), parser: "lines")
    }

    /// A splitter whose limit error names `parser` (the kit's parsers that split lines).
    init(maxLineLength: Int64, parser: String) {
        self.maxLineLength = Int(clamping: max(maxLineLength, 1))
        self.parser = parser
    }

    /// The lines that `chunk` completes, in order.
    package mutating func split(_ chunk: Data) throws -> [Data] {
        var lines: [Data] = []
        try forEachLine(in: chunk) { lines.append(Data($0)) }
        return lines
    }

    /// The body ended: the last line, if it had no line end.
    package mutating func finish() throws -> [Data] {
        defer { reset() }
        return partial.isEmpty ? [] : [Data(partial)]
    }

    /// Forgets the unfinished line (a new body begins).
    package mutating func reset() {
        partial.removeAll(keepingCapacity: true)
        skipsLeadingLF = false
    }

    /// This splitter, moved out: what stays behind holds no unfinished line, so the one taken
    /// owns its buffer alone. A parser whose per-line work mutates itself splits with the taken
    /// one and puts it back.
    mutating func take() -> LineSplitter {
        var taken = LineSplitter(maxLineLength: Int64(maxLineLength), parser: parser)
        swap(&taken, &self)
        return taken
    }

    /// Calls `body` with each line `chunk` completes, as bytes valid only during the call: the
    /// kit's parsers read lines without copying them.
    mutating func forEachLine(in chunk: Data, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            // An empty slice of a larger buffer has a base address and no bytes.
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return }
            let count = bytes.count
            var index = 0
            if skipsLeadingLF {
                skipsLeadingLF = false
                if base[0] == .lineFeed { index = 1 }
            }
            var start = index
            while index < count {
                let byte = base[index]
                // Most bytes are above CR: one comparison lets them through.
                if byte > .carriageReturn || (byte != .lineFeed && byte != .carriageReturn) {
                    index += 1
                    continue
                }
                try emit(UnsafeRawBufferPointer(start: base + start, count: index - start), body)
                if byte == .carriageReturn {
                    if index + 1 < count {
                        if base[index + 1] == .lineFeed { index += 1 }
                    } else {
                        skipsLeadingLF = true
                    }
                }
                index += 1
                start = index
            }
            if start < count {
                let rest = UnsafeRawBufferPointer(start: base + start, count: count - start)
                guard partial.count + rest.count <= maxLineLength else { throw tooLong() }
                partial.append(contentsOf: rest)
            }
        }
    }

    /// One complete line: the unfinished one joined with `tail`, or `tail` alone.
    private mutating func emit(_ tail: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard partial.count + tail.count <= maxLineLength else { throw tooLong() }
        if partial.isEmpty { return try body(tail) }
        partial.append(contentsOf: tail)
        defer { partial.removeAll(keepingCapacity: true) }
        try partial.withUnsafeBytes(body)
    }

    private func tooLong() -> ParseError {
        ParseError(parser: parser, reason: "a line is longer than the limit of \(maxLineLength) bytes", kind: .limit)
    }
}

extension UInt8 {
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
}
