import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// The decoder over `JSON` against `JSONDecoder`: the same values, or the same kind of
/// `DecodingError` at the same coding path.
@Suite struct JSONValueDecoderTests {
    /// What `JSONDecoder` reads: the text itself, or what `JSON.serialized()` writes for the
    /// parsed value (the old path, for numbers `JSON` cannot hold exactly).
    enum Reference { case text, serialized }

    /// Decodes `text` both ways with decoders `configure` sets up, and compares.
    /// With `anyFailure`, two failures match whatever they say.
    func compare<T: Decodable & Equatable>(_ type: T.Type, _ text: String, reference: Reference = .text,
                                           anyFailure: Bool = false, configure: (JSONDecoder) -> Void = { _ in },
                                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let decoder = JSONDecoder()
        configure(decoder)
        let json = try JSON(data: Data(text.utf8))
        let input = reference == .text ? Data(text.utf8) : try json.serialized()
        let expected = Result { try decoder.decode(type, from: input) }
        let actual = Result { try JSONValueDecoder(decoder).decode(type, from: json) }
        switch (expected, actual) {
        case (.success(let lhs), .success(let rhs)):
            #expect(lhs == rhs, "\(text)", sourceLocation: sourceLocation)
        case (.failure, .failure) where anyFailure:
            return
        case (.failure(let lhs), .failure(let rhs)):
            #expect(Self.matches(lhs, rhs), "\(text): \(Self.summary(lhs)) vs \(Self.summary(rhs))",
                    sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): JSONDecoder \(expected), JSONValueDecoder \(actual)", sourceLocation: sourceLocation)
        }
    }

    /// The same case, type and path. JSONDecoder reports a number that does not fit at the top
    /// level, and a bad ISO 8601 date at its container; ours name the value itself.
    static func matches(_ expected: any Error, _ actual: any Error) -> Bool {
        if case DecodingError.dataCorrupted(let reference) = expected, case DecodingError.dataCorrupted(let ours) = actual {
            return reference.codingPath.count <= ours.codingPath.count
                && zip(reference.codingPath, ours.codingPath).allSatisfy { $0.stringValue == $1.stringValue }
        }
        return summary(expected) == summary(actual)
    }

    /// A `DecodingError`'s case, type and coding path.
    static func summary(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }
        switch error as? DecodingError {
        case .typeMismatch(let type, let context): return "typeMismatch \(type) at \(path(context))"
        case .valueNotFound(let type, let context): return "valueNotFound \(type) at \(path(context))"
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) at \(path(context))"
        case .dataCorrupted(let context): return "dataCorrupted at \(path(context))"
        default: return "\(error)"
        }
    }

    // MARK: Values

    /// A nested struct with an optional member.
    struct Address: Codable, Equatable { var street: String; var zip: String? }
    /// Nested structs, arrays, optionals, dictionaries with String and Int keys, a set.
    struct Person: Codable, Equatable {
        var name: String; var age: Int; var home: Address; var previous: [Address]; var nickname: String?
        var scores: [Double]; var flags: [String: Bool]; var byYear: [Int: String]; var tags: Set<String>
    }
    /// An enum with String raw values.
    enum Kind: String, Codable, Equatable { case book, film }
    /// An enum with Int raw values.
    enum Level: Int, Codable, Equatable { case low = 1, high = 2 }
    /// Enums, a URL, a Decimal, an optional enum, nested arrays of optionals.
    struct Mixed: Codable, Equatable {
        var kind: Kind; var level: Level; var url: URL; var price: Decimal; var maybe: Kind?; var grid: [[Int?]]
    }

    @Test func valuesDecodeAsJSONDecoderDecodesThem() throws {
        let person = #"{"name": "Ann", "age": 41, "home": {"street": "Elm 1", "zip": "123"}, "previous": [{"street": "Oak 2"}, {"street": "Ash 3", "zip": null}], "scores": [1, 2.5, -3e10, 0.1], "flags": {"a": true, "b_c": false}, "byYear": {"1999": "x", "-2": "y"}, "tags": ["a", "b"]}"#
        try compare(Person.self, person)
        try compare([Person].self, "[\(person), \(person)]")
        try compare(Mixed.self, #"{"kind": "film", "level": 2, "url": "https://a.example/x?y=1#z", "price": 12.25, "grid": [[1, null], []]}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 1, "url": "/relative", "price": 7, "maybe": "film", "grid": []}"#)
        try compare([Decimal].self, "[0.1, 12, -3.25, 1e-7, 1e20, -0, 0]")
        try compare([String: [Int]].self, #"{"a": [1], "": [], "é": [2, 3]}"#)
        try compare([Int: Bool].self, #"{"1": true, "20": false}"#)
        try compare([String?].self, #"["a", null, "\u00e9\n"]"#)
        try compare(String.self, #""top level""#)
        try compare(Int?.self, "null")
        try compare([Bool?].self, "[true, null, false]")
    }

    /// Arrays of the scalars the decoder reads without a decoder per element.
    struct Lists: Codable, Equatable { var names: [String]; var counts: [Int]; var ratios: [Double]; var maybe: [Int]? }

    @Test func scalarArraysDecodeAsArrayDecodesThem() throws {
        try compare(Lists.self, #"{"names": ["a", ""], "counts": [1, 2.0, -3], "ratios": [0.5, 2], "maybe": [7]}"#)
        try compare(Lists.self, #"{"names": [], "counts": [], "ratios": [], "maybe": null}"#)
        for broken in [#""names": "a""#, #""names": null"#, #""names": [1]"#, #""names": ["a", null]"#, #""counts": [1.5]"#,
                       #""counts": [300000000000000000000]"#, #""ratios": [null]"#, #""ratios": {}"#, #""maybe": [null]"#, #""maybe": "x""#] {
            let key = broken.split(separator: ":")[0]
            let fine = #"{"names": [], "counts": [], "ratios": [], "maybe": []}"#.replacingOccurrences(of: "\(key): []", with: broken)
            try compare(Lists.self, fine)
            try compare([Lists].self, "[\(fine)]")
        }
    }

    /// Every width at its limits, one past them, and numbers that are whole only in form.
    @Test(arguments: 0..<10) func integersDecodeAtTheirLimits(width: Int) throws {
        func check<T: FixedWidthInteger & Codable>(_ type: T.Type) throws {
            let limits = [Int128(T.min), Int128(T.max), Int128(T.min) - 1, Int128(T.max) + 1]
            for number in limits {
                // Beyond Int64, JSONReader keeps the nearest Double: compare with the old path.
                let reference: Reference = Int64(exactly: number) == nil ? .serialized : .text
                try compare([T].self, "[\(number)]", reference: reference)
            }
            for text in ["0", "-0", "3.0", "1e2", "-1", "2.5", "1e-2", "12.000", "\"3\"", "true", "null", "{}"] {
                try compare([T].self, "[\(text)]")
            }
        }
        let types: [any (FixedWidthInteger & Codable).Type] =
            [Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self]
        try check(types[width])
    }

    @Test func wideIntegersAndFloatingPoint() throws {
        /// The 128-bit integers.
        struct Wide: Codable, Equatable { var signed: Int128; var unsigned: UInt128 }
        try compare(Wide.self, #"{"signed": -9223372036854775808, "unsigned": 9223372036854775807}"#)
        try compare(Wide.self, #"{"signed": 1e30, "unsigned": 0}"#, reference: .serialized)
        try compare([Float].self, "[0.1, 3.4028235e38, -0.0, 16777217, 1e-45, 7]")
        try compare([Float].self, "[3.5e38]")
        try compare([Float].self, "[1e-50]")
        try compare([Double].self, "[1e308, 5e-324, 0.1, -0, 9007199254740993, -9223372036854775808]")
        try compare([Double].self, #"["1.5"]"#)
        try compare([Bool].self, "[true, null]")
        try compare([Bool].self, "[1]")
    }

    /// `JSONReader` keeps integers above `Int64.max` as the nearest `Double`; they decode as the
    /// old path through text decoded them, which `JSONDecoder` on the body would not.
    @Test func integersAboveInt64MaxDecodeAsTheOldPathDid() throws {
        let decode = { (text: String) in try JSONValueDecoder(JSONDecoder()).decode([UInt64].self, from: JSON(data: Data(text.utf8))) }
        #expect(try decode("[10000000000000000000]") == [10_000_000_000_000_000_000])
        #expect(try decode("[12345678901234567890]") == [12_345_678_901_234_567_000])
        #expect(throws: DecodingError.self) { try decode("[18446744073709551615]") }
        for text in ["[9223372036854775808]", "[12345678901234567890]", "[18446744073709551615]", "[1e19]"] {
            try compare([UInt64].self, text, reference: .serialized)
        }
    }

    // MARK: Failures

    @Test func failuresHaveTheSameKindAndPath() throws {
        let base = #""name": "Ann", "age": 1, "home": {"street": "s"}, "previous": [], "scores": [], "flags": {}, "byYear": {}, "tags": []"#
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""age": 1"#, with: #""age": "1""#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""age": 1,"#, with: ""))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""name": "Ann""#, with: #""name": null"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""previous": []"#, with: #""previous": [{"zip": "1"}]"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""previous": []"#, with: #""previous": {}"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""home": {"street": "s"}"#, with: #""home": null"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""flags": {}"#, with: #""flags": {"a": 1}"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""byYear": {}"#, with: #""byYear": {"x": "1"}"#))}")
        try compare(Person.self, "{\(base.replacingOccurrences(of: #""scores": []"#, with: #""scores": [1, null]"#))}")
        try compare(Mixed.self, #"{"kind": "song", "level": 1, "url": "https://a.example", "price": 1, "grid": []}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 3, "url": "https://a.example", "price": 1, "grid": []}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 1, "url": "", "price": 1, "grid": []}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 1, "url": "https://a.example", "price": "1", "grid": []}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 1, "url": "https://a.example", "price": null, "grid": []}"#)
        try compare(Mixed.self, #"{"kind": "book", "level": 1, "url": "https://a.example", "price": 1, "grid": [[1, "x"]]}"#)
        try compare([Int].self, #"{"a": 1}"#)
        try compare([String: Int].self, "[]")
        try compare(Address.self, "null")
        try compare(Address.self, "[]")
        try compare(URL.self, "null")
        try compare(URL.self, "3")
        try compare(Decimal.self, "null")
    }

    // MARK: Strategies

    /// A date and an optional one.
    struct Stamp: Codable, Equatable { var at: Date; var maybe: Date? }

    @Test func everyDateStrategy() throws {
        let iso = ["2023-11-14T22:13:20Z", "2023-11-14T22:13:20.123Z", "2023-11-14T22:13:20+01:00", "2023-11-14T22:13:20+0100",
                   "2023-11-14T22:13:20z", "2023-11-14 22:13:20Z", "2023-11-14", "20231114T221320Z", " 2023-11-14T22:13:20Z",
                   "2023-13-14T22:13:20Z", "2023-11-14T22:13:20.123456789Z", "yesterday"]
        for text in iso {
            try compare(Stamp.self, #"{"at": "\#(text)"}"#) { $0.dateDecodingStrategy = .iso8601 }
        }
        let strategies: [(String, JSONDecoder.DateDecodingStrategy)] = [
            ("deferredToDate", .deferredToDate), ("secondsSince1970", .secondsSince1970),
            ("millisecondsSince1970", .millisecondsSince1970), ("iso8601", .iso8601),
        ]
        for (name, strategy) in strategies {
            for value in ["1700000000", "1700000000123.5", "-1", "\"2023-11-14T22:13:20Z\"", "null", "[]", "true"] {
                try compare(Stamp.self, #"{"at": \#(value), "maybe": null}"#) { _ = name; $0.dateDecodingStrategy = strategy }
                try compare([Stamp].self, #"[{"at": 0, "maybe": \#(value)}]"#) { $0.dateDecodingStrategy = strategy }
            }
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "dd/MM/yyyy"
        formatter.timeZone = TimeZone(identifier: "UTC")
        for text in [#""14/11/2023""#, #""2023-11-14""#, "3", "null"] {
            try compare(Stamp.self, #"{"at": \#(text)}"#) { $0.dateDecodingStrategy = .formatted(formatter) }
        }
        let custom = JSONDecoder.DateDecodingStrategy.custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let days = Double(text.dropFirst(4)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a day"))
            }
            return Date(timeIntervalSince1970: days * 86_400)
        }
        for text in [#""day 3""#, #""day x""#, "4", "null"] {
            try compare([Stamp].self, #"[{"at": \#(text)}]"#) { $0.dateDecodingStrategy = custom }
        }
    }

    @Test func everyDataStrategy() throws {
        /// Data and optional data.
        struct Blob: Codable, Equatable { var bytes: Data; var more: Data? }
        for text in [#""aGk=""#, #""aGk""#, #""aG k=""#, #""""#, #""!!!""#, #""aGk==""#, "[104, 105]", "[300]", "5", "null"] {
            try compare(Blob.self, #"{"bytes": \#(text)}"#) { $0.dataDecodingStrategy = .base64 }
            try compare(Blob.self, #"{"bytes": \#(text)}"#) { $0.dataDecodingStrategy = .deferredToData }
            try compare(Blob.self, #"{"bytes": \#(text)}"#) {
                $0.dataDecodingStrategy = .custom { decoder in Data(try decoder.singleValueContainer().decode(String.self).utf8.reversed()) }
            }
        }
    }

    @Test func keyStrategies() throws {
        /// Snake-case keys of every shape, and dictionaries whose keys the strategy leaves alone.
        struct Account: Codable, Equatable {
            var firstName: String; var lastLoginAt: Int; var _private: Int; var trailing_: Int; var aB: Int?
            var url2X: Int?; var überStraße: Int?; var members: [String: Int]; var byID: [Int: Int]
        }
        let text = #"{"first_name": "Ann", "last__login_at": 5, "_private": 1, "trailing_": 2, "url_2x": 3, "über_straße": 4, "members": {"snake_key": 1}, "by_i_d": {"1": 2}}"#
        try compare(Account.self, text) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        try compare(Account.self, text.replacingOccurrences(of: "last__login_at", with: "last_login")) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        }
        for key in ["a_1b", "ABC_DEF", "a_bC", "x_ÉCOLE", "a_ßx", "_a_b_", "__", "a", "", "a__b__c"] {
            try compare(KeyList.self, #"{"\#(key)": 1}"#) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        }
        // Keys that become one: the old path kept the first in sorted order.
        try compare(Account.self, #"{"first_name": "A", "firstName": "B", "last_login_at": 1, "lastLoginAt": 2, "_private": 1, "trailing_": 2, "a_b": 1, "aB": 2, "a__b": 3, "members": {}, "byID": {}}"#, reference: .serialized) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        }
        /// Upper-case keys all the way down.
        struct Upper: Codable, Equatable { var value: Int; var nested: [Upper]; var counts: [String: Int] }
        try compare(Upper.self, #"{"VALUE": 5, "NESTED": [{"VALUE": 6, "NESTED": [], "COUNTS": {}}], "COUNTS": {"KEEP": 1}}"#) {
            $0.keyDecodingStrategy = .custom { path in JSONCodingKey((path.last?.stringValue ?? "").lowercased()) }
        }
        try compare(Upper.self, #"{"VALUE": 5, "NESTED": [{"VALUE": "6", "NESTED": [], "COUNTS": {}}], "COUNTS": {}}"#) {
            $0.keyDecodingStrategy = .custom { path in JSONCodingKey((path.last?.stringValue ?? "").lowercased()) }
        }
    }

    /// The keys a container offers, sorted.
    struct KeyList: Decodable, Equatable {
        var keys: [String]
        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: JSONCodingKey.self).allKeys.map(\.stringValue).sorted()
        }
    }

    @Test func nonConformingFloatsAndUserInfo() throws {
        let strings = JSONDecoder.NonConformingFloatDecodingStrategy.convertFromString(
            positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        try compare([Double].self, #"[1, "+inf", "-inf"]"#) { $0.nonConformingFloatDecodingStrategy = strings }
        try compare([Float].self, #"[1, "+inf", "-inf"]"#) { $0.nonConformingFloatDecodingStrategy = strings }
        try compare([Double].self, #"[1, "nan!"]"#) { $0.nonConformingFloatDecodingStrategy = strings }
        try compare([Double].self, #"["+inf"]"#)
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = strings
        let nan = try JSONValueDecoder(decoder).decode([Double].self, from: ["nan"])
        #expect(nan.count == 1 && nan[0].isNaN)

        /// A number scaled by a factor in `userInfo`.
        struct Scaled: Decodable, Equatable {
            static let factor = CodingUserInfoKey(rawValue: "factor")
            var value: Double
            init(from decoder: any Decoder) throws {
                let factor = Self.factor.flatMap { decoder.userInfo[$0] as? Double } ?? 1
                value = try decoder.singleValueContainer().decode(Double.self) * factor
            }
        }
        let factor = try #require(Scaled.factor)
        try compare([Scaled].self, "[1, 2.5]") { $0.userInfo = [factor: 10.0] }
        #expect(try JSONValueDecoder({ let decoder = JSONDecoder(); decoder.userInfo = [factor: 10.0]; return decoder }())
            .decode([Scaled].self, from: [1, 2.5]).map(\.value) == [10, 25])
    }

    // MARK: Hand-written decoders

    /// Inheritance, with a nested keyed and unkeyed container and `superDecoder(forKey:)`.
    class Animal: Decodable, Equatable {
        let name: String
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
        }
        /// The keys read.
        enum CodingKeys: String, CodingKey { case name }
        func isEqual(to other: Animal) -> Bool { name == other.name }
        static func == (lhs: Animal, rhs: Animal) -> Bool { type(of: lhs) == type(of: rhs) && lhs.isEqual(to: rhs) }
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
        /// The keys read.
        enum Keys: String, CodingKey { case position, details, owner, base }
        override func isEqual(to other: Animal) -> Bool {
            guard let other = other as? Dog else { return false }
            return super.isEqual(to: other) && position == other.position && owner == other.owner
        }
    }

    /// Inheritance through the same decoder, and the keyed `superDecoder()` (the `super` key).
    final class Cat: Animal {
        let lives: Int
        let parent: Animal?
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            lives = try container.decode(Int.self, forKey: .lives)
            parent = container.contains(.super) ? try Animal(from: container.superDecoder()) : nil
            try super.init(from: decoder)
        }
        /// The keys read.
        enum Keys: String, CodingKey { case lives, `super` }
        override func isEqual(to other: Animal) -> Bool {
            guard let other = other as? Cat else { return false }
            return super.isEqual(to: other) && lives == other.lives && parent == other.parent
        }
    }

    /// Unkeyed containers in every way: nested, keyed inside, `superDecoder()`, `decodeNil`, past the end.
    struct Rows: Decodable, Equatable {
        var cells: [[Int]] = []
        var names: [String] = []
        var nils = 0
        var count: Int?
        init(from decoder: any Decoder) throws {
            var rows = try decoder.unkeyedContainer()
            count = rows.count
            while !rows.isAtEnd {
                if try rows.decodeNil() {
                    nils += 1
                    continue
                }
                switch rows.currentIndex % 3 {
                case 0:
                    var row = try rows.nestedUnkeyedContainer()
                    var cells: [Int] = []
                    while !row.isAtEnd { cells.append(try row.decode(Int.self)) }
                    self.cells.append(cells)
                case 1:
                    names.append(try rows.nestedContainer(keyedBy: JSONCodingKey.self).decode(String.self, forKey: JSONCodingKey("name")))
                default:
                    names.append(try rows.superDecoder().singleValueContainer().decode(String.self))
                }
            }
            if count == 4 { _ = try rows.decode(Int.self) }  // past the end, on purpose
        }
    }

    @Test func handWrittenDecodersWork() throws {
        try compare(Dog.self, #"{"position": [1, 2], "details": {"owner": "ann"}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [1, "2"], "details": {"owner": "ann"}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [], "details": {}, "base": {"name": "rex"}}"#)
        try compare(Dog.self, #"{"position": [], "details": {"owner": "a"}}"#)
        try compare(Dog.self, #"{"position": null, "details": {"owner": "a"}, "base": {"name": "rex"}}"#)
        try compare(Cat.self, #"{"name": "tom", "lives": 9, "super": {"name": "old tom"}}"#)
        try compare(Cat.self, #"{"name": "tom", "lives": 9}"#)
        try compare(Cat.self, #"{"name": "tom", "lives": 9, "super": {}}"#)
        try compare(Rows.self, #"[[1, 2], {"name": "a"}, "b", null, [3], {"name": "c"}]"#)
        try compare(Rows.self, #"[[1, 2], {"name": "a"}, "b", null]"#)
        try compare(Rows.self, #"[[1, 2], {"name": 1}, "b"]"#)
        try compare(Rows.self, #"[[1, 2], ["a"], "b"]"#)
        try compare(Rows.self, #"[{}, {"name": "a"}, "b"]"#)
        try compare(Rows.self, #"[[1], {"name": "a"}, 5]"#)
    }

    /// The converter's errors read as before: the type, what was expected, and the path.
    @Test func converterErrorsNameTypeAndPath() throws {
        let json = try JSON(data: Data(#"[{"street": "a"}, {"street": 1}]"#.utf8))
        #expect(throws: ParseError(parser: "model", reason: "cannot decode Array<Address>: expected String at 1/street", kind: .model)) {
            try CodableConverter().convert(json, to: [Address].self, name: nil)
        }
        let snake = CodableConverter { let decoder = JSONDecoder(); decoder.keyDecodingStrategy = .convertFromSnakeCase; return decoder }
        /// A snake-case key.
        struct Named: Decodable { var firstName: String }
        #expect(try snake.convert(["first_name": "Ann"], to: Named.self, name: nil).firstName == "Ann")
    }
}

// MARK: - Random documents

extension JSONValueDecoderTests {
    /// Random JSON values (seeded), their members named from a small set so models find some.
    struct RandomJSON {
        var random: SeededGenerator
        static let keys = ["id", "name", "score", "tags", "child", "first_name", "k"]

        mutating func value(depth: Int = 0) -> JSON {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(integer())
            case 3: return .double(double())
            case 4: return .string(String((0..<Int.random(in: 0..<6, using: &random)).map { _ in "aé_Z\u{1F600}".randomElement(using: &random) ?? "a" }))
            case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth: depth + 1) })
            default:
                let count = Int.random(in: 0..<5, using: &random)
                let members = (0..<count).map { _ in (Self.keys.randomElement(using: &random) ?? "k", value(depth: depth + 1)) }
                return .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
            }
        }

        /// Small numbers mostly, and each integer width's limits.
        mutating func integer() -> Int64 {
            let limits: [Int64] = [0, 1, -1, 127, -128, 255, 32767, -32768, 65535, 2_147_483_647, -2_147_483_648,
                                   4_294_967_295, .max, .min, 1 << 53, (1 << 53) + 1]
            if Bool.random(using: &random) { return limits.randomElement(using: &random) ?? 0 }
            return Int64.random(in: -1_000_000...1_000_000, using: &random)
        }

        /// Decimal fractions, whole numbers in `Double` form, and any magnitude up to 1e30.
        mutating func double() -> Double {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return (Double.random(in: -1e6...1e6, using: &random) * 1000).rounded() / 1000
            case 1: return Double(Int.random(in: -300...300, using: &random))
            case 2: return Double.random(in: -1...1, using: &random) * pow(10, Double(Int.random(in: -30...30, using: &random)))
            default: return [0x1p53, 0x1p63, -0x1p63, 0x1p64, 1e19, 1.2345678901234567e19, 3.4028235e38, 1e-50]
                .randomElement(using: &random) ?? 0
            }
        }
    }

    /// Optional members of random documents.
    struct Sample: Codable, Equatable {
        var id: Int?
        var name: String?
        var score: Double?
        var tags: [String]?
        var child: JSON?
    }

    /// Required members of random documents: mostly failures, to compare.
    struct Strict: Codable, Equatable {
        var id: Int
        var tags: [JSON]
    }

    /// A member found through the snake-case strategy.
    struct Snake: Codable, Equatable {
        var firstName: String?
        var k: Int64?
    }

    /// Random documents decode both ways alike (`JSON` itself is `Codable`): as `JSON`, as models
    /// and as collections, compared with `JSONDecoder` reading `json.serialized()`.
    @Test func randomDocumentsDecodeTheSameBothWays() throws {
        var generator = RandomJSON(random: SeededGenerator(seed: 2026))
        for _ in 0..<1000 {
            let text = String(decoding: try generator.value().serialized(), as: UTF8.self)
            try compare(JSON.self, text, reference: .serialized)
            try compare(Sample.self, text, reference: .serialized)
            try compare([Sample].self, text, reference: .serialized)
            try compare(Strict.self, text, reference: .serialized)
            try compare(Snake.self, text, reference: .serialized) { $0.keyDecodingStrategy = .convertFromSnakeCase }
            try compare([Double?].self, text, reference: .serialized)
            try compare([JSON].self, text, reference: .serialized)
            // A dictionary with several bad members may be reported at another of them:
            // `JSON` objects keep no member order.
            try compare([String: Int].self, text, reference: .serialized, anyFailure: true)
        }
    }

    /// Random numbers of every size decode to every number type as `JSONDecoder` reads their text.
    @Test func randomNumbersDecodeTheSameBothWays() throws {
        var generator = RandomJSON(random: SeededGenerator(seed: 7))
        for _ in 0..<1000 {
            let number: JSON = Bool.random(using: &generator.random) ? .int(generator.integer()) : .double(generator.double())
            let text = String(decoding: try JSON.array([number]).serialized(), as: UTF8.self)
            try compare([Int].self, text)
            try compare([Int8].self, text)
            try compare([Int16].self, text)
            try compare([Int32].self, text)
            try compare([UInt32].self, text)
            try compare([Int64].self, text)
            try compare([UInt64].self, text)
            try compare([UInt].self, text)
            try compare([Float].self, text)
            try compare([Double].self, text)
            try compare([Decimal].self, text)
            try compare([Date].self, text) { $0.dateDecodingStrategy = .millisecondsSince1970 }
        }
    }
}
