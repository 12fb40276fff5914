import MultipartKit
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a `multipart/form-data` body as it streams in, in chunks cut anywhere, and reports each
/// part's headers, size and CRC-32 exactly as vapor/multipart-kit's `MultipartParser` fed the
/// whole body would, refusing what it refuses.
///
/// multipart-kit stays the authority on structure: it reads every byte of the preamble, of each
/// delimiter and of each part's header block. What it would only pass through, the bytes of a
/// part's body, are read here instead: from where its body starts to the next delimiter
/// (CRLF, "--", the boundary), found with `memchr` and `memcmp`, they are counted and
/// checksummed in bulk, and multipart-kit reads the delimiter next.
///
/// Why that is exact: inside a body, multipart-kit falls back on a mismatch to having matched
/// one byte when the byte is CR and none otherwise. When the boundary has no CR, CR occurs in
/// the delimiter only as its first byte, so that fallback is a plain substring search: its body
/// ends where the delimiter first occurs, with every byte before it passed on, in order. A
/// boundary with CR, which RFC 2046 does not allow, is refused.
///
/// Where a body starts is where multipart-kit ends a header block: the first CRLF CRLF after
/// the delimiter (it refuses any other CR in a header block). The preamble ends where
/// multipart-kit's own preamble matcher, followed byte for byte here, ends it. Each stretch fed
/// to multipart-kit checks that model: a preamble or header block must not complete a part or
/// pass on body bytes, and a delimiter must complete exactly one part and pass on none, or
/// reading stops with `MultipartReadError.outOfStep`.
///
/// One deviation: multipart-kit traps (an array index out of range) on a byte above 127 in a
/// header field's name; the reader refuses such a byte as malformed instead of feeding it.
final class MultipartReader {
    /// Where multipart-kit is, as far as the reader knows, at the start of `pending`.
    private enum Place {
        /// In the preamble, having matched that many bytes of the delimiter as it counts them.
        case preamble(matched: Int)
        /// In a header block.
        case headers(HeaderScan)
        /// In a part's body, holding back no byte of a partial delimiter.
        case body
        /// Past the close delimiter: multipart-kit ignores the rest, and so does the reader.
        case epilogue
        /// Reading without the bulk path: multipart-kit gets every byte, one at a time, and
        /// only the close delimiter is looked for.
        case everyByte
    }

    /// How far a header block has been read.
    private struct HeaderScan {
        /// How many bytes of CRLF CRLF the bytes so far end with.
        var blankLine = 0
        /// Whether the next byte is in a field's name.
        var inName = false
    }

    private let parser: MultipartParser
    private let digest = PartDigest()
    /// CRLF, "--", the boundary: what ends a part's body.
    private let delimiter: [UInt8]
    private var place: Place
    /// Received bytes not handled yet.
    private var pending = ByteBuffer()
    /// How many bytes multipart-kit has been given so far.
    private(set) var bytesParsed = 0

    /// A reader of a body with `boundary`; nil when the boundary is empty or holds a CR (RFC 2046
    /// allows neither). `bulk: false` gives multipart-kit every byte, one at a time, and nothing
    /// else: the reference the bulk path is tested against, which traps where multipart-kit traps.
    init?(boundary: String, bulk: Bool = true) {
        guard !boundary.isEmpty, !boundary.utf8.contains(.cr) else { return nil }
        parser = MultipartParser(boundary: boundary)
        delimiter = Array("\r\n--\(boundary)".utf8)
        place = bulk ? .preamble(matched: 0) : .everyByte
        let digest = self.digest
        parser.onHeader = { name, value in digest.header(name, value) }
        parser.onBody = { buffer in buffer.withUnsafeReadableBytes { digest.body($0) } }
        parser.onPartComplete = { digest.endPart() }
    }

    /// Reads the next bytes of the body. Throws as soon as multipart-kit refuses them; after a
    /// throw the reader is not to be used again.
    func read(_ chunk: ByteBuffer) throws(MultipartReadError) {
        var chunk = chunk
        pending.writeBuffer(&chunk)
        while try advance() {}
        pending.discardReadBytes()
    }

    /// The parts, once the body has ended: throws `MultipartReadError.incomplete` unless
    /// multipart-kit read the close delimiter.
    func finish() throws(MultipartReadError) -> [UploadedPart] {
        guard case .epilogue = place else { throw .incomplete }
        return digest.parts
    }

    /// Handles the next piece of `pending`; false when more bytes are needed.
    private func advance() throws(MultipartReadError) -> Bool {
        switch place {
        case .epilogue:
            pending.moveReaderIndex(to: pending.writerIndex)
            return false
        case .everyByte:
            return try readByte()
        case .preamble(let matched):
            return try readPreamble(matched: matched)
        case .headers(let scan):
            return try readHeaders(scan)
        case .body:
            return try readBody()
        }
    }

    /// Feeds multipart-kit one byte; after a delimiter, a "-" closes the body.
    private func readByte() throws(MultipartReadError) -> Bool {
        guard let byte = pending.getInteger(at: pending.readerIndex, as: UInt8.self) else { return false }
        let parts = digest.counts.parts
        try feed(1)
        if digest.counts.parts > parts, byte == .hyphen { place = .epilogue }
        return true
    }

    /// Feeds multipart-kit the preamble up to the end of its first delimiter, or all there is so
    /// far. The match follows multipart-kit's preamble matcher step by step, quirks included: a
    /// "-" when nothing is matched counts as the delimiter's third byte (a body may start with
    /// "--" and the boundary), and on a mismatch only CR restarts a match.
    private func readPreamble(matched: Int) throws(MultipartReadError) -> Bool {
        guard pending.readableBytes > 0 else { return false }
        var matched = matched
        let end: Int? = pending.withUnsafeReadableBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                if matched == 0, byte == delimiter[2] {
                    matched = 3
                } else if byte == delimiter[matched] {
                    matched += 1
                } else {
                    matched = matched > 0 && byte == delimiter[0] ? 1 : 0
                }
                if matched == delimiter.count { return index + 1 }
            }
            return nil
        }
        let before = digest.counts
        try feed(end ?? pending.readableBytes)
        guard digest.counts == before else { throw .outOfStep("multipart-kit reported something in the preamble") }
        place = end == nil ? .preamble(matched: matched) : .headers(HeaderScan())
        return end != nil
    }

    /// Feeds multipart-kit a header block up to its end (CRLF CRLF), or all there is so far.
    /// Refuses a byte above 127 in a field's name (where multipart-kit would trap) before it.
    private func readHeaders(_ scan: HeaderScan) throws(MultipartReadError) -> Bool {
        guard pending.readableBytes > 0 else { return false }
        var scan = scan
        var refused = false
        let stop: Int? = pending.withUnsafeReadableBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                if scan.inName, byte > 127 {
                    refused = true
                    return index
                }
                scan.blankLine = Self.blankLineMatch(after: scan.blankLine, byte)
                if scan.blankLine == 4 { return index + 1 }
                // A name starts after each CRLF and ends at its colon (or at a CR, refused there).
                scan.inName = scan.blankLine == 2 || (scan.inName && byte != .colon && byte != .cr)
            }
            return nil
        }
        let before = digest.counts
        try feed(stop ?? pending.readableBytes)
        guard digest.counts.parts == before.parts, digest.counts.bodyBytes == before.bodyBytes else {
            throw .outOfStep("multipart-kit left a header block before its blank line")
        }
        if refused { throw .malformed(NonASCIIFieldName()) }
        place = stop == nil ? .headers(scan) : .body
        return stop != nil
    }

    /// Counts and checksums body bytes up to the next delimiter, then feeds multipart-kit the
    /// delimiter and the byte after it. Keeps back the bytes that may start a delimiter.
    private func readBody() throws(MultipartReadError) -> Bool {
        let found = pending.withUnsafeReadableBytes { firstDelimiter(in: $0) }
        let bodyLength = found ?? max(0, pending.readableBytes - (delimiter.count - 1))
        pending.withUnsafeReadableBytes { digest.body(UnsafeRawBufferPointer(rebasing: $0.prefix(bodyLength))) }
        pending.moveReaderIndex(forwardBy: bodyLength)
        guard found != nil, let next = pending.getInteger(at: pending.readerIndex + delimiter.count, as: UInt8.self) else {
            return false
        }
        let before = digest.counts
        try feed(delimiter.count + 1)
        let after = digest.counts
        guard after.parts == before.parts + 1, after.bodyBytes == before.bodyBytes, next == .cr || next == .hyphen else {
            throw .outOfStep("multipart-kit did not end the part at its delimiter")
        }
        place = next == .hyphen ? .epilogue : .headers(HeaderScan(blankLine: 1))
        return true
    }

    /// Gives multipart-kit the next `count` bytes of `pending`.
    private func feed(_ count: Int) throws(MultipartReadError) {
        guard let slice = pending.readSlice(length: count) else { return }
        bytesParsed += count
        do {
            try parser.execute(slice)
        } catch {
            throw .malformed(error)
        }
    }

    /// The offset of the first whole delimiter in `bytes`.
    private func firstDelimiter(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, bytes.count >= delimiter.count else { return nil }
        let last = bytes.count - delimiter.count  // the last offset a whole delimiter fits at
        return delimiter.withUnsafeBytes { needle -> Int? in
            guard let start = needle.baseAddress else { return nil }
            var offset = 0
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(UInt8.cr), last - offset + 1) else { return nil }
                let position = UnsafeRawPointer(hit) - base
                if memcmp(hit, start, needle.count) == 0 { return position }
                offset = position + 1
            }
            return nil
        }
    }

    /// How many bytes of CRLF CRLF the bytes read so far end with, after one more `byte`.
    private static func blankLineMatch(after matched: Int, _ byte: UInt8) -> Int {
        switch byte {
        case .cr: matched == 2 ? 3 : 1
        case .lf: matched == 1 || matched == 3 ? matched + 1 : 0
        default: 0
        }
    }
}

private extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let hyphen = UInt8(ascii: "-")
    static let colon = UInt8(ascii: ":")
}
