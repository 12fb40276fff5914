import Foundation

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
