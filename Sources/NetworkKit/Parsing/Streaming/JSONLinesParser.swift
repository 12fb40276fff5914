import Foundation

/// JSON Lines (`application/jsonl`, NDJSON): each line of the body is handed, as it completes, to
/// a whole-body parser, so a line gets what a whole answer gets: `JSONLinesParser(JSONParser(…))`
/// checks each line's business code and returns the content at its key path,
/// `JSONLinesParser(ModelParser(Item.self))` decodes each line into a model through the converter
/// registered for it. Each line's ``Response`` has the head and the service's envelope that
/// ``begin(_:)`` got, and the line as its body.
///
/// Lines end at CR, LF or CRLF; lines of whitespace only are skipped (and counted). A line that
/// fails stops the stream with its error, the lines before it delivered: a business code as
/// ``NetworkError/businessCode(code:message:)``, as the line's parser threw it; a ``ParseError``
/// with `line N: ` (N counting from 1) before its reason; an error of another type as a
/// ``ParseError`` of kind `custom` that names the line and holds it. A line longer than
/// ``maxLineLength`` bytes throws a ``ParseError`` of kind `limit`.
public struct JSONLinesParser<Line: ResponseParser>: StreamParser {
    /// The parser each line goes to.
    public let line: Line
    private var lines: LineSplitter
    private var template = Response(url: nil, status: 200, data: Data())
    private var lineNumber = 0

    /// Hands each line of up to `maxLineLength` bytes (16 MiB by default) to `line`.
    public init(_ line: Line, maxLineLength: Int64 = 16 << 20) {
        self.line = line
        lines = LineSplitter(maxLineLength: maxLineLength, parser: "json-lines")
    }

    /// The longest line, in bytes, that it accepts.
    public var maxLineLength: Int64 { Int64(lines.maxLineLength) }

    /// Keeps the head and the service's envelope that each line's response carries; lines are
    /// counted from 1 again.
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

    /// The value of the next line; nil when it is blank.
    private mutating func value(of bytes: UnsafeRawBufferPointer) throws -> Line.Output? {
        lineNumber += 1
        guard !StreamRecord.isBlank(bytes) else { return nil }
        var response = template
        response.data = Data(bytes)
        do {
            return try line.parse(response)
        } catch {
            throw StreamRecord.error(error, at: "line \(lineNumber)", parser: "json-lines")
        }
    }
}

extension JSONLinesParser where Line == JSONParser {
    /// Each line as JSON, unchecked (a service's envelope, if it has one, applies to each line).
    public init(maxLineLength: Int64 = 16 << 20) {
        self.init(JSONParser(), maxLineLength: maxLineLength)
    }
}
