import Foundation

/// Decodes `Decodable` models straight from a parsed `JSON` value, so a model behind a content
/// key path is not written back out as text and parsed a second time. It follows the strategies
/// of the `JSONDecoder` it is made from (keys, dates, data, non-conforming floats, user info) and
/// throws the same kinds of `DecodingError` with the same coding paths.
///
/// One difference is inherent: `JSON` holds integers as `Int64` and other numbers as `Double`,
/// so a `UInt64` above `Int64.max`, or a `Decimal` with more digits than a `Double` keeps,
/// arrives rounded where `JSONDecoder` would read the text.
struct JSONValueDecoder {
    /// The strategies of a `JSONDecoder`.
    struct Options {
        var keys: JSONDecoder.KeyDecodingStrategy
        var dates: JSONDecoder.DateDecodingStrategy
        var data: JSONDecoder.DataDecodingStrategy
        var floats: JSONDecoder.NonConformingFloatDecodingStrategy
        var userInfo: [CodingUserInfoKey: Any]
        /// The decoder itself, for the one strategy that cannot be read: `.formatted` dates.
        let jsonDecoder: JSONDecoder

        init(_ decoder: JSONDecoder) {
            jsonDecoder = decoder
            keys = decoder.keyDecodingStrategy
            dates = decoder.dateDecodingStrategy
            data = decoder.dataDecodingStrategy
            floats = decoder.nonConformingFloatDecodingStrategy
            userInfo = decoder.userInfo
        }

        /// `value` written out and read back by the configured `JSONDecoder`, errors moved to `path`.
        func decodeWithJSONDecoder<T: Decodable>(_ type: T.Type, _ value: JSON, at path: [any CodingKey]) throws -> T {
            do {
                return try jsonDecoder.decode(type, from: value.serialized())
            } catch DecodingError.dataCorrupted(let context) {
                throw DecodingError.dataCorrupted(.init(codingPath: path + context.codingPath,
                                                        debugDescription: context.debugDescription))
            }
        }
    }

    let options: Options

    init(_ decoder: JSONDecoder) {
        options = Options(decoder)
    }

    func decode<T: Decodable>(_ type: T.Type, from json: JSON) throws -> T {
        try JSONValueDecoding(json, at: [], options: options).unwrap(type)
    }
}

/// The `Decoder` for one value of the tree, at one coding path.
struct JSONValueDecoding: Decoder {
    let value: JSON
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder.Options

    init(_ value: JSON, at codingPath: [any CodingKey], options: JSONValueDecoder.Options) {
        self.value = value
        self.codingPath = codingPath
        self.options = options
    }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try notNull(KeyedDecodingContainer<Key>.self, "keyed decoding container")
        guard case .object(let members) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try notNull((any UnkeyedDecodingContainer).self, "unkeyed decoding container")
        guard case .array(let elements) = value else { throw mismatch([Any].self) }
        return JSONUnkeyedContainer(elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    private func notNull(_ type: Any.Type, _ what: String) throws {
        guard value == .null else { return }
        throw DecodingError.valueNotFound(type, .init(codingPath: codingPath,
                                                      debugDescription: "Cannot get \(what) -- found null value instead"))
    }

    /// A decoder for `value` one step further down.
    func child(_ value: JSON, key: any CodingKey) -> JSONValueDecoding {
        JSONValueDecoding(value, at: codingPath + [key], options: options)
    }

    /// `valueNotFound` for a `null`, `typeMismatch` for anything else, as `JSONDecoder` says it.
    func mismatch(_ expected: Any.Type) -> DecodingError {
        guard value != .null else {
            return DecodingError.valueNotFound(expected, .init(codingPath: codingPath,
                                                               debugDescription: "Expected \(expected) value but found null instead."))
        }
        let found: String
        switch value {
        case .null: found = "null"
        case .bool: found = "bool"
        case .int, .double: found = "number"
        case .string: found = "string"
        case .array: found = "array"
        case .object: found = "dictionary"
        }
        return DecodingError.typeMismatch(expected, DecodingError.Context(
            codingPath: codingPath, debugDescription: "Expected to decode \(expected) but found \(found) instead."))
    }

    /// `T` from this value, with the types `JSONDecoder` treats specially.
    func unwrap<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Date.self, let date = try unwrapDate() as? T { return date }
        if T.self == Data.self, let data = try unwrapData() as? T { return data }
        if T.self == URL.self {
            let text = try decode(String.self)
            guard let url = URL(string: text) as? T else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return url
        }
        if T.self == Decimal.self, let decimal = try unwrapDecimal() as? T { return decimal }
        if let dictionary = T.self as? any StringKeyedDictionary.Type, let decoded = try dictionary.decode(from: self) as? T {
            return decoded
        }
        return try T(from: self)
    }

    private func unwrapDate() throws -> Date {
        switch options.dates {
        case .deferredToDate:
            return try Date(from: self)
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decode(Double.self))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decode(Double.self) / 1000)
        case .iso8601:
            let text = try decode(String.self)
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                                                        debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        case .custom(let decodeDate):
            return try decodeDate(self)
        #if canImport(Darwin)
        case .formatted:
            // Darwin's Foundation has `.formatted` as a case (elsewhere it is `.custom`).
            return try options.decodeWithJSONDecoder(Date.self, value, at: codingPath)
        #endif
        @unknown default:
            return try options.decodeWithJSONDecoder(Date.self, value, at: codingPath)
        }
    }

    private func unwrapData() throws -> Data {
        switch options.data {
        case .deferredToData:
            return try Data(from: self)
        case .base64:
            guard let data = Data(base64Encoded: try decode(String.self)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath,
                                                        debugDescription: "Encountered Data is not valid Base64."))
            }
            return data
        case .custom(let decodeData):
            return try decodeData(self)
        @unknown default:
            return try options.decodeWithJSONDecoder(Data.self, value, at: codingPath)
        }
    }

    private func unwrapDecimal() throws -> Decimal {
        switch value {
        case .int(let number): return Decimal(number)
        // The shortest text that reads back as this Double, as JSONDecoder would have read it.
        case .double(let number): return Decimal(string: "\(number)") ?? Decimal(number)
        default: throw mismatch(Decimal.self)
        }
    }
}

/// `[String: Value]`, which `JSONDecoder` decodes with its keys as they are: the key strategy
/// is for the coding keys of types, not for the keys of dictionaries.
protocol StringKeyedDictionary {
    static func decode(from decoder: JSONValueDecoding) throws -> Self
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decode(from decoder: JSONValueDecoding) throws -> Self {
        guard case .object(let members) = decoder.value else { throw decoder.mismatch([String: Value].self) }
        var result: [String: Value] = [:]
        result.reserveCapacity(members.count)
        for (key, member) in members {
            result[key] = try decoder.child(member, key: JSONCodingKey(key)).unwrap(Value.self)
        }
        return result
    }
}

/// A coding key made from a string or an index.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
