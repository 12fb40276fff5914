import Foundation

// The keyed and unkeyed containers of `JSONValueDecoding`. Scalars are read straight from the
// member or element; a decoder one level down is only made for values that decode themselves.

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
            self.members = Self.converting(members, Self.fromSnakeCase)
        case .custom(let convert):
            let path = decoder.codingPath
            self.members = Self.converting(members) { key in convert(path + [JSONCodingKey(key)]).stringValue }
        @unknown default:
            self.members = members  // not reached: `Options` refuses a key strategy it does not know
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    /// The member at `key`, or `keyNotFound`.
    private func member(_ key: Key) throws -> JSON {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath,
                                                       debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    /// The member at `key`, or nil when it is missing or `null`.
    private func present(_ key: Key) -> JSON? {
        guard let value = members[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(member(key), key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(member(key), key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.floatingPoint(type, member(key), key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.floatingPoint(type, member(key), key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(type, member(key), key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(type, member(key), key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(type, member(key), key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(type, member(key), key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(type, member(key), key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decoder.integer(type, member(key), key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(type, member(key), key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(type, member(key), key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(type, member(key), key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(type, member(key), key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(type, member(key), key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoder.integer(type, member(key), key) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, member(key), at: key)
    }

    // Optional properties: one lookup instead of the default's three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try decoder.bool($0, key) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try decoder.string($0, key) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try decoder.floatingPoint(type, $0, key) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try present(key).map { try decoder.floatingPoint(type, $0, key) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(key).map { try decoder.integer(type, $0, key) } }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try decoder.decode(type, $0, at: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(member(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(member(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(members["super"] ?? .null, key: JSONCodingKey("super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(members[key.stringValue] ?? .null, key: key)
    }

    /// `members` under the keys `convert` makes of theirs. When two become one, the member kept
    /// is the one `JSONSerialization`'s `.sortedKeys` writes first, as on the old path through
    /// text (where `JSONDecoder` keeps the first it reads); `JSON` objects have no order of their own.
    private static func converting(_ members: [String: JSON], _ convert: (String) -> String) -> [String: JSON] {
        var converted: [String: JSON] = [:]
        converted.reserveCapacity(members.count)
        for (key, value) in members { converted[convert(key)] = value }
        guard converted.count < members.count else { return converted }
        converted.removeAll(keepingCapacity: true)
        let sorted = members.sorted { lhs, rhs in
            lhs.key.compare(rhs.key, options: [.numeric, .caseInsensitive, .forcedOrdering],
                            range: lhs.key.startIndex..<lhs.key.endIndex, locale: NSLocale.system) == .orderedAscending
        }
        for (key, value) in sorted {
            let newKey = convert(key)
            if converted[newKey] == nil { converted[newKey] = value }
        }
        return converted
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

    /// The next element, given with this container's decoder and its key to `decode`, moving
    /// past it only when that succeeds; `valueNotFound` (saying `atEnd`) when there is none.
    private mutating func next<T>(_ type: Any.Type, atEnd: String = "Unkeyed container is at end.",
                                  _ decode: (JSONValueDecoding, JSON, JSONCodingKey) throws -> T) throws -> T {
        let key = JSONCodingKey(index: currentIndex)
        guard currentIndex < elements.count else { throw decoder.notFound(type, key, atEnd) }
        let result = try decode(decoder, elements[currentIndex], key)
        currentIndex += 1
        return result
    }

    /// True, moving past it, when the next element is `null`; false, staying, when it is not.
    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else {
            throw decoder.notFound(Never.self, JSONCodingKey(index: currentIndex), "Unkeyed container is at end.")
        }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.bool($1, $2) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.string($1, $2) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.floatingPoint(type, $1, $2) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.floatingPoint(type, $1, $2) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.integer(type, $1, $2) } }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.integer(type, $1, $2) } }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try next(type) { try $0.integer(type, $1, $2) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(type) { try $0.decode(type, $1, at: $2) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.child($1, key: $2).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self,
                 atEnd: "Cannot get nested unkeyed container -- unkeyed container is at end.") {
            try $0.child($1, key: $2).unkeyedContainer()
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.") {
            $0.child($1, key: $2)
        }
    }
}
