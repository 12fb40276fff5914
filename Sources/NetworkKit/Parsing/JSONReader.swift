import Foundation

extension JSON {
    /// Parses JSON text (any top-level value). Malformed text, invalid UTF-8 and nesting
    /// deeper than 512 levels throw a `ParseError` naming the byte offset.
    public init(data: Data) throws {
        self = try JSONReader.parse(data)
    }
}

/// Reads JSON text (RFC 8259) straight into `JSON`, without Foundation's object graph and the
/// dynamic casts it needs. Strict: no trailing commas, comments, NaN or leading zeros; strings
/// must be valid UTF-8; nesting deeper than `maxDepth` is refused rather than overflowing the stack.
struct JSONReader {
    static let maxDepth = 512

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0
    /// The members of the objects being read, innermost last. Each object's dictionary is made
    /// once its members are known, with their count: one allocation per object rather than one
    /// per growth, and no rehashing.
    private var members: [(key: String, value: JSON)] = []
    /// The same for the elements of the arrays being read.
    private var elements: [JSON] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON value (any kind at top level) filling all of `data` but white space.
    static func parse(_ data: Data) throws -> JSON {
        try data.withUnsafeBytes { raw in
            var reader = JSONReader(raw.bindMemory(to: UInt8.self))
            reader.skipByteOrderMark()
            reader.skipWhitespace()
            let value = try reader.readValue()
            reader.skipWhitespace()
            guard reader.index == reader.bytes.count else { throw reader.error("unexpected data after the value") }
            return value
        }
    }

    func error(_ reason: String) -> ParseError {
        ParseError(parser: "json", reason: "malformed JSON: \(reason) at byte \(index)", kind: .malformed)
    }

    var current: UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Some servers prefix UTF-8 JSON with a byte order mark; RFC 8259 lets parsers ignore it.
    private mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index].isJSONWhitespace { index += 1 }
    }

    private mutating func readValue() throws -> JSON {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("unexpected character \"\(Unicode.Scalar(byte))\"")
        }
    }

    private mutating func expect(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("invalid literal") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
    }

    /// An object; a key that comes again keeps its last value.
    private mutating func readObject() throws -> JSON {
        if members.capacity == 0 { members.reserveCapacity(Self.scratchCapacity) }
        let start = members.count
        defer { members.removeSubrange(start...) }
        try readElements(closing: UInt8(ascii: "}")) { reader in
            guard reader.current == UInt8(ascii: "\"") else { throw reader.error("expected a string key") }
            let key = try reader.readString()
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ":") else { throw reader.error("expected \":\"") }
            reader.index += 1
            reader.skipWhitespace()
            reader.members.append((key, try reader.readValue()))
        }
        var object = [String: JSON](minimumCapacity: members.count - start)
        for member in members[start...] { object[member.key] = member.value }
        return .object(object)
    }

    private mutating func readArray() throws -> JSON {
        if elements.capacity == 0 { elements.reserveCapacity(Self.scratchCapacity) }
        let start = elements.count
        defer { elements.removeSubrange(start...) }
        try readElements(closing: UInt8(ascii: "]")) { reader in
            reader.elements.append(try reader.readValue())
        }
        return .array(Array(elements[start...]))
    }

    /// Room the scratch space of objects' members and of arrays' elements starts with, each the
    /// first time the document has one: enough for most documents' open containers together.
    private static let scratchCapacity = 32

    /// The part objects and arrays share: the opening bracket at `index`, the nesting limit,
    /// the empty case, and the commas between elements up to `closing`. `element` reads one
    /// element (a key and its value, in an object) from its first byte.
    @inline(__always)
    private mutating func readElements(closing: UInt8, _ element: (inout JSONReader) throws -> Void) throws {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if current == closing {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
            } else if current == closing {
                index += 1
                return
            } else {
                throw error("expected \",\" or \"\(Unicode.Scalar(closing))\"")
            }
        }
    }
}

extension UInt8 {
    /// Space, tab, LF or CR: the whitespace of JSON.
    var isJSONWhitespace: Bool {
        self == 0x20 || self == 0x09 || self == .lineFeed || self == .carriageReturn
    }
}

extension JSONReader {
    /// A string, its escapes resolved; the opening quote is at `index`.
    mutating func readString() throws -> String {
        index += 1
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw error("control character in a string") }
            index += 1
        }
        var scratch = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try scratch.withUnsafeBufferPointer { try makeString($0) }
            case UInt8(ascii: "\\"):
                index += 1
                try readEscape(into: &scratch)
            case 0..<0x20:
                throw error("control character in a string")
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>) throws -> String {
        guard let text = String.validatingUTF8(utf8) else { throw error("string is not valid UTF-8") }
        return text
    }

    private mutating func readEscape(into scratch: inout [UInt8]) throws {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try readHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u") else { throw error("unpaired surrogate") }
                index += 2
                let low = UInt32(try readHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            scratch.append(contentsOf: Character(unicode).utf8)
        default:
            throw error("invalid escape \"\\\(Unicode.Scalar(byte))\"")
        }
    }

    private mutating func readHex4() throws -> UInt16 {
        guard bytes.count - index >= 4 else { throw error("short \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// A number: `.int` when it is an integer that fits in Int64, `.double` otherwise.
    mutating func readNumber() throws -> JSON {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw error("leading zero in a number") }
        } else {
            skipDigits()
        }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard let digit = current, isDigit(digit) else { throw error("expected a digit after \".\"") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let value = Int64(text) { return .int(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }
}
