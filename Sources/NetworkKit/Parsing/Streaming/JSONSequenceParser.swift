import Foundation

/// JSON text sequences (RFC 7464, `application/json-seq`): each record begins with the record
/// separator RS (0x1E) and runs to the next RS or the end of the body; when it is complete it is
/// handed to a whole-body parser, as ``JSONLinesParser`` does with lines, with the head and the
/// service's envelope that ``begin(_:)`` got.
///
/// What a recovering parser of the RFC skips is skipped, silently:
/// - bytes before the first RS, and records of whitespace only (two RS in a row);
/// - a record that does not end with LF and whose JSON does not parse: it was cut short (§2.3);
/// - a number, `true`, `false` or `null` not followed by whitespace: it may have been cut short
///   (`123` of `1234`), so it is dropped even though it parses (§2.4).
///
/// A complete record (one that ends with LF) that fails stops the stream, the records before it
/// delivered: a business code as ``NetworkError/businessCode(code:message:)``, as the record's
/// parser threw it; a ``ParseError`` with `record N: ` (N counting non-blank records from 1)
/// before its reason; an error of another type as a ``ParseError`` of kind `custom` that names the
/// record and holds it. A record longer than ``maxRecordLength`` bytes throws a ``ParseError`` of
/// kind `limit`.
public struct JSONSequenceParser<Record: ResponseParser>: StreamParser {
    /// The parser each record goes to.
    public let record: Record
    /// The longest record, in bytes, RS not included.
    public let maxRecordLength: Int64
    /// The unfinished record the last chunk ended with.
    private var current: [UInt8] = []
    /// True once an RS came: the bytes that follow belong to a record.
    private var inRecord = false
    private var template = Response(url: nil, status: 200, data: Data())
    private var recordNumber = 0

    /// Hands each record of up to `maxRecordLength` bytes (16 MiB by default) to `record`.
    public init(_ record: Record, maxRecordLength: Int64 = 16 << 20) {
        self.record = record
        self.maxRecordLength = max(maxRecordLength, 1)
    }

    /// Keeps the head and the service's envelope that each record's response carries; forgets a
    /// record the last body left unfinished, and counts records from 1 again.
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
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            var start = 0
            while start < bytes.count {
                let separator = memchr(base + start, 0x1E, bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) }
                let piece = UnsafeRawBufferPointer(start: base + start, count: (separator ?? bytes.count) - start)
                guard let separator else {
                    if inRecord { try hold(piece) }
                    break
                }
                if inRecord, let value = try complete(piece) { values.append(value) }
                inRecord = true
                start = separator + 1
            }
        }
        return values
    }

    /// The value of the last record.
    public mutating func finish() throws -> [Record.Output] {
        guard inRecord else { return [] }
        inRecord = false
        return try complete(UnsafeRawBufferPointer(start: nil, count: 0)).map { [$0] } ?? []
    }

    /// Keeps `piece` of a record that goes on in the next chunk.
    private mutating func hold(_ piece: UnsafeRawBufferPointer) throws {
        guard Int64(current.count + piece.count) <= maxRecordLength else { throw tooLong() }
        current.append(contentsOf: piece)
    }

    /// The record held, ended by `tail`: its value, nil when it is skipped.
    private mutating func complete(_ tail: UnsafeRawBufferPointer) throws -> Record.Output? {
        guard Int64(current.count + tail.count) <= maxRecordLength else { throw tooLong() }
        if current.isEmpty { return try value(of: tail) }
        current.append(contentsOf: tail)
        defer { current.removeAll(keepingCapacity: true) }
        return try current.withUnsafeBytes { try value(of: $0) }
    }

    private mutating func value(of bytes: UnsafeRawBufferPointer) throws -> Record.Output? {
        guard let first = bytes.first(where: { !$0.isJSONWhitespace }), let last = bytes.last else { return nil }
        recordNumber += 1
        let selfDelimited = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        if !selfDelimited, !last.isJSONWhitespace { return nil }
        var response = template
        response.data = Data(bytes)
        do {
            return try record.parse(response)
        } catch {
            if last != .lineFeed, (try? JSON(data: response.data)) == nil { return nil }
            throw StreamRecord.error(error, at: "record \(recordNumber)", parser: "json-seq")
        }
    }

    private func tooLong() -> ParseError {
        ParseError(parser: "json-seq", reason: "a record is longer than the limit of \(maxRecordLength) bytes", kind: .limit)
    }
}

extension JSONSequenceParser where Record == JSONParser {
    /// Each record as JSON, unchecked (a service's envelope, if it has one, applies to each record).
    public init(maxRecordLength: Int64 = 16 << 20) {
        self.init(JSONParser(), maxRecordLength: maxRecordLength)
    }
}
