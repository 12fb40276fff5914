import Foundation

/// JSON Lines (`application/jsonl`, NDJSON): each line of the body is handed, as it completes, to
/// a whole-body parser, so a line gets what a whole answer gets: `JSONLinesParser(JSONParser(…))`
/// checks each line's business code and returns the content at its key path,
/// `JSONLinesParser(ModelParser(Item.self))` decodes each line into a model through the converter
/// registered for it. Blank lines are skipped. A line that fails stops the stream with its error
/// (a business code as ``NetworkError/businessCode(code:message:)``, anything else as a
/// ``ParseError`` that names the line); the lines before it were delivered.
public struct JSONLinesParser<Line: ResponseParser>: StreamParser {
    /// The parser each line goes to.
    public let line: Line
    private var lines: LineSplitter
    private var template = Response(url: nil, statusCode: 200, data: Data())
    private var lineNumber = 0

    /// Hands each line of up to `maxLineLength` bytes (16 MiB by default) to `line`.
    public init(_ line: Line, maxLineLength: Int = 16 << 20) {
        self.line = line
        lines = LineSplitter(maxLineLength: maxLineLength)
    }

    /// Keeps the head and the service's envelope that each line's response carries.
    public mutating func begin(_ response: Response) throws {
        template = response
        template.data = Data()
        lines.reset()
        lineNumber = 0
    }

    /// The values of the lines `chunk` completes.
    public mutating func parse(_ chunk: Data) throws -> [Line.Output] {
        var values: [Line.Output] = []
        var splitter = lines.take()
        defer { lines = splitter }
        try splitter.forEachLine(in: chunk) { bytes in
            if let value = try value(of: bytes) { values.append(value) }
        }
        return values
    }

    /// The value of a last line without a line end.
    public mutating func finish() throws -> [Line.Output] {
        try lines.finish().compactMap { data in try data.withUnsafeBytes { try value(of: $0) } }
    }

    private mutating func value(of bytes: UnsafeRawBufferPointer) throws -> Line.Output? {
        lineNumber += 1
        guard bytes.contains(where: { !Self.isWhitespace($0) }) else { return nil }
        var response = template
        response.data = Data(bytes)
        do {
            return try line.parse(response)
        } catch let error as ParseError {
            var named = error
            named.reason = "line \(lineNumber): \(error.reason)"
            throw named
        }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension JSONLinesParser where Line == JSONParser {
    /// Each line as JSON, unchecked.
    public init(maxLineLength: Int = 16 << 20) {
        self.init(JSONParser(), maxLineLength: maxLineLength)
    }
}
