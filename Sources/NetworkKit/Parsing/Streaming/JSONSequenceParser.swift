import Foundation

/// JSON text sequences (RFC 7464, `application/json-seq`): each record begins with the record
/// separator (0x1E) and is handed, when the next one begins or the body ends, to a whole-body
/// parser, as ``JSONLinesParser`` does with lines. As the RFC asks, a record that does not parse
/// and does not end with LF is taken as truncated and skipped; a complete record that does not
/// parse stops the stream with a ``ParseError`` that names it. Bytes before the first separator
/// are ignored.
public struct JSONSequenceParser<Record: ResponseParser>: StreamParser {
    /// The parser each record goes to.
    public let record: Record
    /// The longest record, in bytes.
    public let maxRecordLength: Int
    private var current: [UInt8] = []
    private var inRecord = false
    private var template = Response(url: nil, statusCode: 200, data: Data())
    private var recordNumber = 0

    /// Hands each record of up to `maxRecordLength` bytes (16 MiB by default) to `record`.
    public init(_ record: Record, maxRecordLength: Int = 16 << 20) {
        self.record = record
        self.maxRecordLength = max(maxRecordLength, 1)
    }

    /// Keeps the head and the service's envelope that each record's response carries.
    public mutating func begin(_ response: Response) throws {
        template = response
        template.data = Data()
        current.removeAll(keepingCapacity: true)
        inRecord = false
        recordNumber = 0
    }

    /// The values of the records `chunk` completes.
    public mutating func parse(_ chunk: Data) throws -> [Record.Output] {
        var values: [Record.Output] = []
        var rest = chunk[...]
        while !rest.isEmpty {
            let separator = rest.firstIndex(of: 0x1E)
            let piece = rest[..<(separator ?? rest.endIndex)]
            if inRecord {
                guard current.count + piece.count <= maxRecordLength else {
                    throw ParseError(parser: "json-seq", reason: "a record is longer than the limit of \(maxRecordLength) bytes",
                                     kind: .limit)
                }
                current.append(contentsOf: piece)
            }
            guard let separator else { break }
            if inRecord, let value = try complete() { values.append(value) }
            inRecord = true
            rest = rest[(separator + 1)...]
        }
        return values
    }

    /// The value of the last record.
    public mutating func finish() throws -> [Record.Output] {
        guard inRecord else { return [] }
        inRecord = false
        return try complete().map { [$0] } ?? []
    }

    /// The record held: its value, nil when it is empty or truncated.
    private mutating func complete() throws -> Record.Output? {
        defer { current.removeAll(keepingCapacity: true) }
        recordNumber += 1
        guard current.contains(where: { !JSONLinesParser<Record>.isWhitespace($0) }) else { return nil }
        var response = template
        response.data = Data(current)
        do {
            return try record.parse(response)
        } catch let error as ParseError {
            guard current.last == .lineFeed else { return nil }   // truncated: skipped
            var named = error
            named.reason = "record \(recordNumber): \(error.reason)"
            throw named
        }
    }
}

extension JSONSequenceParser where Record == JSONParser {
    /// Each record as JSON, unchecked.
    public init(maxRecordLength: Int = 16 << 20) {
        self.init(JSONParser(), maxRecordLength: maxRecordLength)
    }
}
