import Foundation

/// Decodes `Decodable` models straight from a parsed `JSON` value, so a model behind a content
/// key path is not written back out as text and parsed a second time. It follows the strategies
/// of the `JSONDecoder` it is made from (keys, dates, data, non-conforming floats, user info) and
/// throws the same kinds of `DecodingError` at the same coding paths (more precise ones where
/// `JSONDecoder` reports a number that does not fit, or a bad ISO 8601 date, above its key).
///
/// Numbers are read the way `JSONDecoder` reads the text `JSON.serialized()` writes for them, so
/// a model decodes to exactly what a round trip through that text gives. `JSONReader` keeps
/// integers that fit `Int64` exact and reads every other number as the nearest `Double`, so a
/// `UInt64` above `Int64.max`, or a `Decimal` with more digits than a `Double` keeps, arrives
/// rounded, where `JSONDecoder` reading the body itself would keep it exact.
struct JSONValueDecoder {
    /// The strategies, or nil when the key strategy is unknown to this decoder: then `decode`
    /// goes through text.
    private let options: Options?
    private let jsonDecoder: JSONDecoder

    init(_ decoder: JSONDecoder) {
        jsonDecoder = decoder
        options = Options(decoder)
    }

    func decode<T: Decodable>(_ type: T.Type, from json: JSON) throws -> T {
        guard let options else {
            // A strategy this decoder does not know (Foundation may add one): rather than guess at
            // it, write the value out and let the JSONDecoder that knows it read it back.
            return try jsonDecoder.decode(type, from: json.serialized())
        }
        return try JSONValueDecoding(json, at: .root, options: options).unwrap(type)
    }
}

extension JSONValueDecoder {
    /// The strategies of a `JSONDecoder`, read once and shared by the decoders of every level.
    final class Options {
        let keys: JSONDecoder.KeyDecodingStrategy
        let dates: JSONDecoder.DateDecodingStrategy
        let data: JSONDecoder.DataDecodingStrategy
        let floats: JSONDecoder.NonConformingFloatDecodingStrategy
        let userInfo: [CodingUserInfoKey: Any]
        /// True for `.useDefaultKeys`, when `[String: Value]` needs no case of its own (see `unwrap`).
        let usesDefaultKeys: Bool
        /// The decoder itself, for what can only be done faithfully by it (see `decodeThroughText`).
        private let jsonDecoder: JSONDecoder

        /// Nil when the key strategy is one this decoder does not know.
        init?(_ decoder: JSONDecoder) {
            keys = decoder.keyDecodingStrategy
            dates = decoder.dateDecodingStrategy
            data = decoder.dataDecodingStrategy
            floats = decoder.nonConformingFloatDecodingStrategy
            userInfo = decoder.userInfo
            jsonDecoder = decoder
            switch keys {
            case .useDefaultKeys: usesDefaultKeys = true
            case .convertFromSnakeCase, .custom: usesDefaultKeys = false
            // Keys shape every container, so an unknown key strategy sends the whole value the
            // old way; an unknown date or data strategy only sends those values (see `unwrap`).
            @unknown default: return nil
            }
        }

        /// `value` written out and read back by the configured `JSONDecoder` (the old path, for
        /// what only it does faithfully), its errors moved below `path`.
        func decodeThroughText<T: Decodable>(_ type: T.Type, _ value: JSON, at path: [any CodingKey]) throws -> T {
            do {
                return try jsonDecoder.decode(type, from: value.serialized())
            } catch let error as DecodingError {
                func moved(_ context: DecodingError.Context) -> DecodingError.Context {
                    .init(codingPath: path + context.codingPath, debugDescription: context.debugDescription,
                          underlyingError: context.underlyingError)
                }
                switch error {
                case .typeMismatch(let type, let context): throw DecodingError.typeMismatch(type, moved(context))
                case .valueNotFound(let type, let context): throw DecodingError.valueNotFound(type, moved(context))
                case .keyNotFound(let key, let context): throw DecodingError.keyNotFound(key, moved(context))
                case .dataCorrupted(let context): throw DecodingError.dataCorrupted(moved(context))
                @unknown default: throw error
                }
            }
        }
    }
}

/// The `Decoder` for one value of the tree, at one coding path. Its containers decode scalars
/// from their members without making a decoder for each; the path of a member is only put
/// together when an error needs it.
struct JSONValueDecoding: Decoder {
    let value: JSON
    let path: JSONCodingPath
    let options: JSONValueDecoder.Options

    init(_ value: JSON, at path: JSONCodingPath, options: JSONValueDecoder.Options) {
        self.value = value
        self.path = path
        self.options = options
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: Any].self, value, nil, null: "Cannot get keyed decoding container -- found null value instead")
        }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([Any].self, value, nil, null: "Cannot get unkeyed decoding container -- found null value instead")
        }
        return JSONUnkeyedContainer(elements, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    /// A decoder for `value`, found at `key` below this one.
    func child(_ value: JSON, key: any CodingKey) -> JSONValueDecoding {
        JSONValueDecoding(value, at: .key(key, in: path), options: options)
    }

    /// The coding path of `key` below this value, or this value's path when `key` is nil.
    func codingPath(to key: (any CodingKey)?) -> [any CodingKey] {
        guard let key else { return codingPath }
        return JSONCodingPath.key(key, in: path).keys
    }

    // MARK: Errors, as JSONDecoder words them

    /// `valueNotFound` for a `null`, `typeMismatch` for anything else, at `key` (or here).
    func mismatch(_ expected: Any.Type, _ found: JSON, _ key: (any CodingKey)?, null: String? = nil) -> DecodingError {
        if found == .null {
            return notFound(expected, key, null ?? "Cannot get value of type \(expected) -- found null value instead")
        }
        return typeMismatch(expected, found, key)
    }

    /// `typeMismatch`, also for a `null` (as `JSONDecoder` says for a `Bool`).
    func typeMismatch(_ expected: Any.Type, _ found: JSON, _ key: (any CodingKey)?) -> DecodingError {
        let kind: String
        switch found {
        case .null: kind = "null"
        case .bool: kind = "bool"
        case .int, .double: kind = "number"
        case .string: kind = "string"
        case .array: kind = "array"
        case .object: kind = "dictionary"
        }
        return DecodingError.typeMismatch(expected, .init(codingPath: codingPath(to: key),
                                                          debugDescription: "Expected to decode \(expected) but found \(kind) instead."))
    }

    func notFound(_ expected: Any.Type, _ key: (any CodingKey)?, _ description: String) -> DecodingError {
        DecodingError.valueNotFound(expected, .init(codingPath: codingPath(to: key), debugDescription: description))
    }

    func corrupted(_ key: (any CodingKey)?, _ description: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: codingPath(to: key), debugDescription: description))
    }
}

/// Where a value is: the root, or a key below another value. Going one level down makes one
/// small node and copies nothing; the array of keys is only made when asked for (errors, custom
/// key strategies, models that read `codingPath`).
indirect enum JSONCodingPath {
    case root
    case key(any CodingKey, in: JSONCodingPath)

    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while case .key(let key, let parent) = node {
            keys.append(key)
            node = parent
        }
        return keys.reversed()
    }
}

/// `[String: Value]`, which `JSONDecoder` decodes with its keys as they are when a key strategy
/// is set: the strategy is for the coding keys of types, not for the keys of dictionaries.
protocol StringKeyedDictionary {
    static func decode(from decoder: JSONValueDecoding) throws -> Self
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decode(from decoder: JSONValueDecoding) throws -> Self {
        guard case .object(let members) = decoder.value else {
            throw decoder.mismatch([String: Any].self, decoder.value, nil)
        }
        var result: [String: Value] = [:]
        result.reserveCapacity(members.count)
        for (key, member) in members {
            result[key] = try decoder.decode(Value.self, member, at: JSONCodingKey(key))
        }
        return result
    }
}

/// A coding key made from a member's name or an element's index; an index's text
/// (`Index 3`, as `JSONDecoder` has it) is only made when asked for.
enum JSONCodingKey: CodingKey {
    case name(String)
    case index(Int)

    init(_ name: String) { self = .name(name) }
    init(index: Int) { self = .index(index) }
    init?(stringValue: String) { self = .name(stringValue) }
    init?(intValue: Int) { self = .index(intValue) }

    var stringValue: String {
        switch self {
        case .name(let name): return name
        case .index(let index): return "Index \(index)"
        }
    }

    var intValue: Int? {
        if case .index(let index) = self { return index }
        return nil
    }
}
