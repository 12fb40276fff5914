import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

@Suite("JSON reader")
struct JSONReaderTests {
    @Test func readsEveryKindOfValue() throws {
        let text = #" {"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "i": -42, "big": 12345678901234567890, "d": 1.5e3,"#
            + #" "z": -0, "t": true, "f": false, "n": null, "a": [1, [2, {}], []], "o": {"k": "v"}} "#
        let json = try JSON(data: Data(text.utf8))
        #expect(json["s"] == "a\"b\\c/d\né😀")
        #expect(json["i"] == -42)
        #expect(json["big"] == .double(1.2345678901234567e19))
        #expect(json["d"] == .double(1500))
        #expect(json["z"] == 0)
        #expect(json["t"] == true && json["f"] == false && json["n"] == .null)
        #expect(json["a"] == [1, [2, [:]], []])
        #expect(json["o"] == ["k": "v"])
        #expect(try JSON(data: Data("\"top\"".utf8)) == "top")
        #expect(try JSON(data: Data("7".utf8)) == 7)
        #expect(try JSON(data: Data([0xEF, 0xBB, 0xBF] + Array("[true]".utf8))) == [true])
    }

    /// Containers within containers, each object's and array's members collected apart from its
    /// neighbours' and its parent's; a key that comes again keeps its last value.
    @Test func nestedContainersKeepTheirOwnMembers() throws {
        let text = #"{"a": [{}, [], {"b": [1, {"c": 2, "c": 3}], "d": {}}, [[4], 5]], "e": 6, "a2": [], "e": 7}"#
        let json = try JSON(data: Data(text.utf8))
        #expect(json == ["a": [[:], [], ["b": [1, ["c": 3]], "d": [:]], [[4], 5]], "e": 7, "a2": []])
        let wide = "[" + (0..<100).map { #"{"k\#($0)": [\#($0), {"v": \#($0)}]}"# }.joined(separator: ",") + "]"
        let expected = JSON.array((0..<100).map { JSON.object(["k\($0)": [.int(Int64($0)), ["v": .int(Int64($0))]]]) })
        #expect(try JSON(data: Data(wide.utf8)) == expected)
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "tru", "nul",
        "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "\"open", "[1 2]", "{\"a\" 1}",
        "1 2", "NaN", "[1e999]", "// c\n1", "'a'",
    ])
    func rejectsMalformedText(text: String) {
        #expect(throws: ParseError.self) { try JSON(data: Data(text.utf8)) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: ParseError.self) { try JSON(data: Data([0x22, 0xC3, 0x28, 0x22])) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: ParseError.self) { try JSON(data: Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? JSON(data: Data(fine.utf8))) != nil)
    }

    @Test func agreesWithJSONSerializationOnGeneratedDocuments() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let value = Self.randomJSON(depth: 0, using: &random)
            let text = try value.serialized()
            let read = try JSON(data: text)
            #expect(read == value, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test func byteFlipsNeverCrash() throws {
        var random = SeededGenerator(seed: 11)
        let document: JSON = ["a": [1, 2.5, "x\u{e9}", nil, true], "b": ["c": "d"]]
        let source = [UInt8](try document.serialized())
        for _ in 0..<3_000 {
            var bytes = source
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? JSON(data: Data(bytes))
        }
        for length in 0..<source.count {
            _ = try? JSON(data: Data(source.prefix(length)))
        }
    }

    static func randomJSON(depth: Int, using random: inout SeededGenerator) -> JSON {
        let kind = depth > 3 ? Int.random(in: 0..<5, using: &random) : Int.random(in: 0..<7, using: &random)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .int(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random))
        // An odd number of 128ths: never integral, so it reads back as a double.
        case 3: return .double(Double(2 * Int.random(in: -100_000...100_000, using: &random) + 1) / 128)
        case 4:
            let scalars = (0..<Int.random(in: 0..<12, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 1...0x1F600, using: &random)).flatMap { (0xD800..<0xE000).contains($0.value) ? nil : $0 }
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 5:
            return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomJSON(depth: depth + 1, using: &random) })
        default:
            var members: [String: JSON] = [:]
            for index in 0..<Int.random(in: 0..<5, using: &random) {
                members["k\(index)"] = randomJSON(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }
}
