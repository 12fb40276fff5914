import Foundation

// The three containers of `JSONValueDecoding`. The primitive `decode` overloads the protocols
// require all forward to the single-value container of the value they reach.

extension JSONValueDecoding: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = try nonNull(type) else { throw mismatch(type) }
        return flag
    }
    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = try nonNull(type) else { throw mismatch(type) }
        return text
    }
    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try unwrap(type) }

    /// The value, or `valueNotFound` when it is `null`.
    private func nonNull(_ type: Any.Type) throws -> JSON {
        guard value != .null else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath,
                                                          debugDescription: "Expected \(type) value but found null instead."))
        }
        return value
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let fits: T?
        switch try nonNull(type) {
        case .int(let number): fits = T(exactly: number)
        case .double(let number): fits = T(exactly: number)
        default: throw mismatch(type)
        }
        guard let fits else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                                                    debugDescription: "Parsed JSON number <\(value)> does not fit in \(type)."))
        }
        return fits
    }

    private func floatingPoint<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        switch try nonNull(type) {
        case .int(let number):
            return T(number)
        case .double(let number):
            let converted = T(number)
            guard converted.isFinite else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                                                        debugDescription: "Parsed JSON number <\(number)> does not fit in \(type)."))
            }
            return converted
        case .string(let text):
            if case .convertFromString(let positive, let negative, let nan) = options.floats {
                if text == positive { return .infinity }
                if text == negative { return -.infinity }
                if text == nan { return .nan }
            }
            throw mismatch(type)
        default:
            throw mismatch(type)
        }
    }
}

/// An object's members, under the keys the key strategy makes of theirs.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let members: [String: JSON]
    private let decoder: JSONValueDecoding

    init(_ members: [String: JSON], decoder: JSONValueDecoding) {
        self.decoder = decoder
        switch decoder.options.keys {
        case .useDefaultKeys:
            self.members = members
        case .convertFromSnakeCase:
            self.members = Dictionary(members.map { (Self.fromSnakeCase($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        case .custom(let convert):
            let path = decoder.codingPath
            self.members = Dictionary(members.map { (convert(path + [JSONCodingKey($0.key)]).stringValue, $0.value) },
                                      uniquingKeysWith: { first, _ in first })
        @unknown default:
            self.members = members
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    /// The decoder of the member at `key`, or `keyNotFound`.
    private func member(_ key: Key) throws -> JSONValueDecoding {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                       debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return decoder.child(value, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try member(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try member(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try member(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try member(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try member(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try member(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try member(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try member(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try member(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try member(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try member(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try member(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try member(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try member(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).unwrap(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(members["super"] ?? .null, key: JSONCodingKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(members[key.stringValue] ?? .null, key: key)
    }

    /// `first_name` → `firstName`, as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`
    /// does it: leading and trailing underscores stay, inner runs of them go.
    static func fromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty, let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        var last = key.index(before: key.endIndex)
        while last > first, key[last] == "_" { last = key.index(before: last) }
        let words = key[first...last].split(separator: "_")
        guard words.count > 1 else { return key }
        let joined = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}

/// An array's elements, one after the other.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    private let elements: [JSON]
    private let decoder: JSONValueDecoding
    private(set) var currentIndex = 0

    init(_ elements: [JSON], decoder: JSONValueDecoding) {
        self.elements = elements
        self.decoder = decoder
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The decoder of the next element, or `valueNotFound` at the end.
    private func next(_ type: Any.Type) throws -> JSONValueDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [JSONCodingKey(index: currentIndex)],
                                                          debugDescription: "Unkeyed container is at end."))
        }
        return decoder.child(elements[currentIndex], key: JSONCodingKey(index: currentIndex))
    }

    /// Decodes the next element with `decode` and moves past it only when that succeeds.
    private mutating func advance<T>(_ type: T.Type, _ decode: (JSONValueDecoding) throws -> T) throws -> T {
        let value = try decode(next(type))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Any?.self).decodeNil() else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try advance(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try advance(type) { try $0.decode(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try advance(type) { try $0.unwrap(type) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        try advance(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try advance((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try advance((any Decoder).self) { $0 }
    }
}
