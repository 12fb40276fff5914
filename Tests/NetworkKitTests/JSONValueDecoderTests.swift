import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// The decoder over `JSON` against `JSONDecoder` on the same text: the same values, or the same
/// kind of `DecodingError` at the same coding path.
@Suite struct JSONValueDecoderTests {
    /// Decodes `text` both ways with decoders `configure` sets up and compares; with `anyFailure`,
    /// two failures match whatever they say.
    func compare<T: Decodable & Equatable>(_ type: T.Type, _ text: String, anyFailure: Bool = false,
                                           configure: (JSONDecoder) -> Void = { _ in },
                                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = JSONDecoder()
        configure(reference)
        let expected = Result { try reference.decode(type, from: Data(text.utf8)) }
        let json = try JSON(data: Data(text.utf8))
        let actual = Result { try JSONValueDecoder(reference).decode(type, from: json) }
        switch (expected, actual) {
        case (.success(let lhs), .success(let rhs)):
            #expect(lhs == rhs, "\(text)", sourceLocation: sourceLocation)
        case (.failure, .failure) where anyFailure:
            return
        case (.failure(let lhs), .failure(let rhs)):
            // JSONDecoder on Linux reports some dataCorrupted errors (numbers that do not fit,
            // unreadable dates) at the top level; ours name the key. Same kind, more detail.
            if case DecodingError.dataCorrupted(let context) = lhs, context.codingPath.isEmpty,
               case DecodingError.dataCorrupted = rhs {
                return
            }
            #expect(Self.summary(lhs) == Self.summary(rhs), "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): JSONDecoder \(expected), JSONValueDecoder \(actual)", sourceLocation: sourceLocation)
        }
    }

    /// A `DecodingError`'s case and coding path.
    static func summary(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error as? DecodingError {
        case .typeMismatch(_, let context): return "typeMismatch at \(path(context))"
        case .valueNotFound(_, let context): return "valueNotFound at \(path(context))"
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) at \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
        default: return "\(error)"
        }
    }

    struct Item: Codable, Equatable { var id: Int; var tags: [String]; var score: Double? }
    struct Feed: Codable, Equatable { var title: String; var items: [Item]; var extra: [String: Int]; var flag: Bool }
    enum Kind: String, Codable, Equatable { case book, film }
    enum Level: Int, Codable, Equatable { case low = 1, high = 2 }
    struct Mixed: Codable, Equatable { var kind: Kind; var level: Level; var url: URL; var byNumber: [Int: String] }
    struct Widths: Codable, Equatable {
        var i8: Int8; var i16: Int16; var i32: Int32; var i64: Int64
        var u8: UInt8; var u16: UInt16; var u32: UInt32; var u64: UInt64; var u: UInt; var f: Float
    }

    @Test func valuesDecodeAsJSONDecoderDecodesThem() throws {
        try compare(Feed.self, #"{"title": "t", "items": [{"id": 1, "tags": ["a"], "score": 2.5}, {"id": 2, "tags": [], "score": null}], "extra": {"a": 1, "b_c": 2}, "flag": true}"#)
        try compare(Mixed.self, #"{"kind": "film", "level": 2, "url": "https://a.example/x?y=1", "byNumber": {"1": "one", "20": "twenty"}}"#)
        try compare(Widths.self, #"{"i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807, "u8": 255, "u16": 65535, "u32": 4294967295, "u64": 9223372036854775807, "u": 0, "f": 1.5}"#)
        try compare([Int].self, "[1, 2.0, -3]")
        try compare([Double].self, "[1, 2.5, -3e10, 0.1]")
        try compare([String?].self, #"["a", null]"#)
        try compare([[Int]].self, "[[1], [], [2, 3]]")
        try compare([Decimal].self, "[0.1, 12, 3.25]")
        try compare(Item.self, #"{"id": 1, "tags": ["x"]}"#)
    }

    @Test func failuresHaveTheSameKindAndPath() throws {
        try compare(Feed.self, #"{"title": "t", "items": [{"id": "1", "tags": []}], "extra": {}, "flag": true}"#)
        try compare(Feed.self, #"{"title": "t", "items": [{"tags": []}], "extra": {}, "flag": true}"#)
        try compare(Feed.self, #"{"title": null, "items": [], "extra": {}, "flag": true}"#)
        try compare(Feed.self, #"{"title": "t", "items": {}, "extra": {}, "flag": true}"#)
        try compare(Feed.self, #"{"title": "t", "items": [], "extra": {"a": "x"}, "flag": true}"#)
        try compare(Widths.self, #"{"i8": 128, "i16": 0, "i32": 0, "i64": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "u": 0, "f": 0}"#)
        try compare(Widths.self, #"{"i8": 1, "i16": 0, "i32": 0, "i64": 0, "u8": -1, "u16": 0, "u32": 0, "u64": 0, "u": 0, "f": 0}"#)
        try compare([Int].self, "[1, 2.5]")
        try compare(Mixed.self, #"{"kind": "song", "level": 1, "url": "https://a.example", "byNumber": {}}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 3, "url": "https://a.example", "byNumber": {}}"#)
        try compare([Int].self, #"{"a": 1}"#)
        try compare(Item.self, "null")
        try compare(Item.self, "[]")
    }

    @Test func keyDateAndDataStrategiesAreHonoured() throws {
        struct Person: Codable, Equatable { var firstName: String; var lastLoginAt: Date; var avatarData: Data; var _private: Int }
        let text = #"{"first_name": "Ann", "last_login_at": 1700000000, "avatar_data": "aGk=", "_private": 1}"#
        try compare(Person.self, text) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
            $0.dateDecodingStrategy = .secondsSince1970
            $0.dataDecodingStrategy = .base64
        }
        struct Stamp: Codable, Equatable { var at: Date }
        try compare(Stamp.self, #"{"at": 1700000000123}"#) { $0.dateDecodingStrategy = .millisecondsSince1970 }
        try compare(Stamp.self, #"{"at": "2023-11-14T22:13:20Z"}"#) { $0.dateDecodingStrategy = .iso8601 }
        try compare(Stamp.self, #"{"at": "yesterday"}"#) { $0.dateDecodingStrategy = .iso8601 }
        try compare(Stamp.self, #"{"at": 7}"#) { $0.dateDecodingStrategy = .deferredToDate }
        try compare(Stamp.self, #"{"at": "14/11/2023"}"#) {
            let formatter = DateFormatter()
            formatter.dateFormat = "dd/MM/yyyy"
            formatter.timeZone = TimeZone(identifier: "UTC")
            $0.dateDecodingStrategy = .formatted(formatter)
        }
        try compare(Stamp.self, #"{"at": "day 3"}"#) {
            $0.dateDecodingStrategy = .custom { decoder in
                let text = try decoder.singleValueContainer().decode(String.self)
                return Date(timeIntervalSince1970: Double(text.dropFirst(4)).map { $0 * 86_400 } ?? 0)
            }
        }
        struct Upper: Codable, Equatable { var value: Int }
        try compare(Upper.self, #"{"VALUE": 5}"#) {
            $0.keyDecodingStrategy = .custom { path in JSONCodingKey(path.last?.stringValue.lowercased() ?? "") }
        }
        try compare([Double].self, #"[1, "+inf", "nan!"]"#) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf",
                                                                       nan: "nan")
        }
    }

    /// Hand-written `init(from:)` with nested, unkeyed and super decoders, and inheritance.
    class Animal: Decodable, Equatable {
        let name: String
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }
        enum CodingKeys: String, CodingKey { case name }
        static func == (lhs: Animal, rhs: Animal) -> Bool { lhs.name == rhs.name && type(of: lhs) == type(of: rhs) }
    }

    final class Dog: Animal {
        let position: [Int]
        let owner: String
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            var coordinates = try container.nestedUnkeyedContainer(forKey: .position)
            var position: [Int] = []
            while !coordinates.isAtEnd { position.append(try coordinates.decode(Int.self)) }
            self.position = position
            owner = try container.nestedContainer(keyedBy: Keys.self, forKey: .details).decode(String.self, forKey: .owner)
            try super.init(from: container.superDecoder(forKey: .base))
        }
        enum Keys: String, CodingKey { case position, details, owner, base }
        static func == (lhs: Dog, rhs: Dog) -> Bool { lhs.position == rhs.position && lhs.owner == rhs.owner && lhs.name == rhs.name }
    }

    @Test func handWrittenDecodersWork() throws {
        try compare(Dog.self, #"{"position": [1, 2], "details": {"owner": "ann"}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [1, "2"], "details": {"owner": "ann"}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [], "details": {}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [], "details": {"owner": "a"}}"#)
    }

    /// Random documents decode to themselves (`JSON` is `Decodable`) both ways.
    @Test func randomDocumentsDecodeTheSameBothWays() throws {
        var random = SeededGenerator(seed: 2026)
        func value(depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int64.random(in: -1_000_000...1_000_000, using: &random))
            case 3: return .double(Double.random(in: -1e6...1e6, using: &random).rounded(toPlaces: 3))
            case 4: return .string(String((0..<Int.random(in: 0..<6, using: &random)).map { _ in "aé_Z\u{1F600}".randomElement(using: &random) ?? "a" }))
            case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth: depth + 1) })
            default:
                return .object(Dictionary((0..<Int.random(in: 0..<4, using: &random)).map { ("k\($0)", value(depth: depth + 1)) },
                                          uniquingKeysWith: { first, _ in first }))
            }
        }
        for _ in 0..<500 {
            let text = String(decoding: try value(depth: 0).serialized(), as: UTF8.self)
            try compare(JSON.self, text)
            // A dictionary with several wrong members may be reported at another of them:
            // `JSON` objects keep no member order.
            try compare([String: Int].self, text, anyFailure: true)
            try compare([Double?].self, text)
        }
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
