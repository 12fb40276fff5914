import Foundation

// Values that decode themselves, with what `JSONDecoder` treats specially (Date, Data, URL,
// Decimal, `[String: Value]` under a key strategy), and shortcuts for the commonest members.

extension JSONValueDecoding {
    /// `T` from `value`, found at `key` below this decoder's value: the common scalars straight
    /// from it (what `T(from:)` would do, without a decoder one level down), the rest through one.
    func decode<T: Decodable>(_ type: T.Type, _ value: JSON, at key: any CodingKey) throws -> T {
        if T.self == String.self { return Self.same(try string(value, key), as: type) }
        if T.self == Int.self { return Self.same(try integer(Int.self, value, key), as: type) }
        if T.self == Int64.self { return Self.same(try integer(Int64.self, value, key), as: type) }
        if T.self == Double.self { return Self.same(try floatingPoint(Double.self, value, key), as: type) }
        if T.self == Bool.self { return Self.same(try bool(value, key), as: type) }
        if T.self == [String].self { return Self.same(try array(value, key) { try $0.string($1, $2) }, as: type) }
        if T.self == [Int].self { return Self.same(try array(value, key) { try $0.integer(Int.self, $1, $2) }, as: type) }
        if T.self == [Double].self { return Self.same(try array(value, key) { try $0.floatingPoint(Double.self, $1, $2) }, as: type) }
        return try child(value, key: key).unwrap(type)
    }

    /// What `Array.init(from:)` makes of `value` at `key` with the unkeyed container (same
    /// errors, same paths), without the generic code around each element.
    private func array<Element>(_ value: JSON, _ key: any CodingKey,
                                _ element: (JSONValueDecoding, JSON, JSONCodingKey) throws -> Element) throws -> [Element] {
        guard case .array(let elements) = value else {
            throw mismatch([Any].self, value, key, null: "Cannot get unkeyed decoding container -- found null value instead")
        }
        let decoder = child(value, key: key)
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, value) in elements.enumerated() {
            result.append(try element(decoder, value, JSONCodingKey(index: index)))
        }
        return result
    }

    /// `T` from this decoder's value, with the types `JSONDecoder` treats specially.
    func unwrap<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self { return Self.same(try unwrapDate(), as: type) }
        if T.self == Data.self { return Self.same(try unwrapData(), as: type) }
        if T.self == URL.self { return Self.same(try unwrapURL(), as: type) }
        if T.self == Decimal.self { return Self.same(try unwrapDecimal(), as: type) }
        if !options.usesDefaultKeys, let dictionary = T.self as? any StringKeyedDictionary.Type {
            return try decode(dictionary, as: type)
        }
        return try T(from: self)
    }

    /// A `[String: Value]` (`Dictionary`, which is `T`), its keys left as they are.
    private func decode<Dictionary: StringKeyedDictionary, T>(_ dictionary: Dictionary.Type, as type: T.Type) throws -> T {
        Self.same(try Dictionary.decode(from: self), as: type)
    }

    /// `value` as `T`, which the caller has just found to be `Value` itself. A cast (`as? T`)
    /// would look up `Optional<T>` at run time on every call of the generic code above, which
    /// with many small values costs more than the decoding.
    @inline(__always)
    private static func same<Value, T>(_ value: Value, as type: T.Type) -> T {
        precondition(Value.self == T.self)
        return unsafeBitCast(value, to: T.self)
    }

    private func notNull(_ type: Any.Type) throws {
        guard case .null = value else { return }
        throw notFound(type, nil, "Cannot get value of type \(type) -- found null value instead")
    }

    private func unwrapDate() throws -> Date {
        try notNull(Date.self)
        switch options.dates {
        case .deferredToDate:
            return try Date(from: self)
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, value, nil))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, value, nil) / 1000)
        case .iso8601:
            #if canImport(Darwin)
            // Darwin's JSONDecoder has read these with ISO8601DateFormatter in some releases and
            // Date.ISO8601FormatStyle in others, which differ (fractional seconds): let it read them.
            return try options.decodeThroughText(Date.self, value, at: codingPath)
            #else
            // What this platform's JSONDecoder (swift-foundation) parses them with.
            let text = try string(value, nil)
            guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                throw corrupted(nil, "Expected date string to be ISO8601-formatted.")
            }
            return date
            #endif
        case .custom(let decodeDate):
            return try decodeDate(self)
        #if canImport(Darwin)
        case .formatted:
            // A case of its own on Darwin only (elsewhere `.formatted` makes a `.custom`).
            return try options.decodeThroughText(Date.self, value, at: codingPath)
        #endif
        @unknown default:
            // A strategy this decoder does not know: the old path for this value.
            return try options.decodeThroughText(Date.self, value, at: codingPath)
        }
    }

    private func unwrapData() throws -> Data {
        try notNull(Data.self)
        switch options.data {
        case .deferredToData:
            return try Data(from: self)
        case .base64:
            guard case .string(let text) = value else { throw typeMismatch(String.self, value, nil) }
            guard let data = Data(base64Encoded: text) else { throw corrupted(nil, "Encountered Data is not valid Base64.") }
            return data
        case .custom(let decodeData):
            return try decodeData(self)
        @unknown default:
            return try options.decodeThroughText(Data.self, value, at: codingPath)
        }
    }

    private func unwrapURL() throws -> URL {
        try notNull(URL.self)
        guard let url = URL(string: try string(value, nil)) else { throw corrupted(nil, "Invalid URL string.") }
        return url
    }

    private func unwrapDecimal() throws -> Decimal {
        switch value {
        case .int(let number):
            return Decimal(number)
        case .double(let number):
            // The Double's shortest text, which `serialized()` writes and JSONDecoder would read.
            guard let decimal = Decimal(string: "\(number)") else {
                throw corrupted(nil, "Parsed JSON number <\(number)> does not fit in Decimal.")
            }
            return decimal
        default:
            throw mismatch(Decimal.self, value, nil)
        }
    }
}
