import Foundation
@testable import NetworkKit
import Testing

/// JSON Lines and JSON text sequences: each line or record goes to a whole-body parser.
@Suite("Stream parsers: JSON Lines and JSON text sequences")
struct StreamParserJSONTests {
    static let jsonl = Feeding.head("application/jsonl")
    static let jsonSeq = Feeding.head("application/json-seq")

    struct Item: Codable, Sendable, Equatable {
        var id: Int
        var name: String
    }

    /// True when `error` is a business code error with `code`.
    static func isBusinessCode(_ error: any Error, _ code: JSON, message: String?) -> Bool {
        guard case .businessCode(let found, let foundMessage) = error as? NetworkError else { return false }
        return found == code && foundMessage == message
    }

    // MARK: JSON Lines

    @Test("JSON Lines: a value per line; blank and whitespace-only lines are skipped, CRLF too")
    func lines() {
        let text = "{\"a\":1}\r\n\n  \t\n[2,3]\r\"s\"\n \r\nnull\n \t "
        Feeding.check(JSONLinesParser(), [UInt8](utf8: text), [["a": 1], [2, 3], "s", nil], head: Self.jsonl)
    }

    @Test("JSON Lines: the business code and the key path are checked on each line")
    func keyPathPerLine() {
        let parser = JSONLinesParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))
        let text = "{\"code\":0,\"data\":{\"id\":1}}\n{\"code\":\"0\",\"data\":[1]}\n"
        Feeding.check(parser, [UInt8](utf8: text), [["id": 1], [1]], head: Self.jsonl)
    }

    @Test("JSON Lines: a business code on line 3 stops the stream after lines 1 and 2, as a business code error")
    func businessCodeOnLine3() {
        let parser = JSONLinesParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))
        let text = """
            {"code":0,"data":"one"}
            {"code":0,"data":"two"}
            {"code":7,"message":"line 3 is bad"}
            {"code":0,"data":"four"}

            """
        Feeding.checkFails(parser, [UInt8](utf8: text), before: ["one", "two"], head: Self.jsonl) {
            Self.isBusinessCode($0, 7, message: "line 3 is bad")
        }
    }

    @Test("JSON Lines: a parse error names its line, blank lines counted")
    func parseErrorsNameTheLine() throws {
        let keyPath = JSONLinesParser(JSONParser(contentKeyPath: "data"))
        let missing = Feeding.checkFails(keyPath, [UInt8](utf8: "{\"data\":1}\n\n{\"other\":2}\n"), before: [1], head: Self.jsonl) {
            ($0 as? ParseError)?.kind == .keyPath && ($0 as? ParseError)?.reason.hasPrefix("line 3: ") == true
        }
        #expect(missing.map { "\($0)" }?.contains("line 3") == true)
        Feeding.checkFails(JSONLinesParser(), [UInt8](utf8: "1\n2\n{\"a\":\n4\n"), before: [1, 2], head: Self.jsonl) {
            ($0 as? ParseError)?.kind == .malformed && ($0 as? ParseError)?.reason.hasPrefix("line 3: ") == true
        }
        // The last line without a line end is parsed at the end of the body, and named too.
        Feeding.checkFails(JSONLinesParser(), [UInt8](utf8: "1\n{"), before: [1], head: Self.jsonl) {
            ($0 as? ParseError)?.reason.hasPrefix("line 2: ") == true
        }
    }

    @Test("JSON Lines: an error of another type becomes a custom parse error naming the line")
    func customErrors() {
        struct Refused: Error {}
        let parser = JSONLinesParser(ClosureParser<Int> { response in
            guard response.data.first != UInt8(ascii: "x") else { throw Refused() }
            return response.data.count
        })
        let error = Feeding.checkFails(parser, [UInt8](utf8: "ab\nx\n"), before: [2], head: Self.jsonl) {
            ($0 as? ParseError)?.kind == .custom && ($0 as? ParseError)?.parser == "json-lines"
        }
        #expect((error as? ParseError)?.reason.hasPrefix("line 2: ") == true)
        #expect((error as? ParseError)?.underlying is Refused)
    }

    @Test("JSON Lines: each line's response has the head and the service's envelope from begin")
    func envelope() {
        let head = Feeding.head("application/jsonl", envelope: ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))
        let text = "{\"code\":0,\"data\":\"a\"}\n{\"code\":0,\"data\":\"b\"}\n{\"code\":2,\"msg\":\"no\"}\n"
        Feeding.checkFails(JSONLinesParser(), [UInt8](utf8: text), before: ["a", "b"], head: head) {
            Self.isBusinessCode($0, 2, message: "no")
        }
        let sees = JSONLinesParser(ClosureParser { response in response.headerFields[.contentType] ?? "none" })
        Feeding.check(sees, [UInt8](utf8: "1\n2"), ["application/jsonl", "application/jsonl"], head: head)
    }

    @Test("JSON Lines into models: Codable, and through a converter registered for the type")
    func models() {
        let text = "{\"code\":0,\"data\":{\"id\":1,\"name\":\"é\"}}\n{\"code\":0,\"data\":{\"id\":2,\"name\":\"😀\"}}\n"
        let codable = JSONLinesParser(ModelParser(Item.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")))
        Feeding.check(codable, [UInt8](utf8: text), [Item(id: 1, name: "é"), Item(id: 2, name: "😀")], head: Self.jsonl)

        struct Headline: Decodable, Sendable, Equatable { var text: String }
        let registry = ModelRegistry()
        registry.register(Headline.self) { json in
            guard let name = json["name"]?.stringValue else { throw ParseError(parser: "headline", reason: "no name") }
            return Headline(text: name.uppercased())
        }
        let converted = JSONLinesParser(ModelParser(Headline.self, json: JSONParser(contentKeyPath: "data"), registry: registry))
        Feeding.check(converted, [UInt8](utf8: text), [Headline(text: "É"), Headline(text: "😀")], head: Self.jsonl)
        Feeding.checkFails(converted, [UInt8](utf8: text + "{\"data\":{}}\n"), before: [Headline(text: "É"), Headline(text: "😀")],
                           head: Self.jsonl) {
            guard let error = $0 as? ParseError else { return false }
            return error.reason.hasPrefix("line 3: ") && error.reason.contains("no name")
        }
    }

    @Test("JSON Lines: a line over the limit throws")
    func linesLimit() {
        #expect(JSONLinesParser(maxLineLength: 5).maxLineLength == 5)
        Feeding.checkFails(JSONLinesParser(maxLineLength: 5), [UInt8](utf8: "[1,2]\n[1,22]\n"), before: [[1, 2]], head: Self.jsonl) {
            $0 as? ParseError == ParseError(parser: "json-lines", reason: "a line is longer than the limit of 5 bytes", kind: .limit)
        }
    }

    // MARK: JSON text sequences

    static func seq(_ text: String) -> [UInt8] {
        Array(text.replacingOccurrences(of: "␞", with: "\u{1E}").utf8)
    }

    @Test("JSON sequences: a value per record; bytes before the first RS and empty records are skipped")
    func records() {
        Feeding.check(JSONSequenceParser(), Self.seq("junk␞{\"a\":1}\n␞␞ \n␞[2]\n␞\"s\"\n"), [["a": 1], [2], "s"], head: Self.jsonSeq)
        Feeding.check(JSONSequenceParser(), Self.seq("no separator at all\n"), [], head: Self.jsonSeq)
        Feeding.check(JSONSequenceParser(), Self.seq("␞{\"last\":true}\n"), [["last": true]], head: Self.jsonSeq)
    }

    @Test("JSON sequences: a truncated record (no LF, does not parse) is skipped, also at the end (RFC 7464 §2.3)")
    func truncated() {
        Feeding.check(JSONSequenceParser(), Self.seq("␞{\"a\":1}\n␞{\"a\":␞{\"b\":2}\n␞[1,2"), [["a": 1], ["b": 2]], head: Self.jsonSeq)
        // A complete object without its LF is not truncated: it is delivered.
        Feeding.check(JSONSequenceParser(), Self.seq("␞{\"a\":1}"), [["a": 1]], head: Self.jsonSeq)
    }

    @Test("JSON sequences: a number, true, false or null not followed by whitespace is dropped (RFC 7464 §2.4)")
    func topLevelScalars() {
        Feeding.check(JSONSequenceParser(), Self.seq("␞123␞456\n␞true␞false \n␞null"), [456, false], head: Self.jsonSeq)
        Feeding.check(JSONSequenceParser(), Self.seq("␞\"foo\"␞-1\r"), ["foo", -1], head: Self.jsonSeq)
    }

    @Test("JSON sequences: a complete malformed record throws and names the record")
    func malformed() {
        let error = Feeding.checkFails(JSONSequenceParser(), Self.seq("␞␞{\"a\":1}\n␞{nope}\n␞2\n"), before: [["a": 1]],
                                       head: Self.jsonSeq) {
            ($0 as? ParseError)?.kind == .malformed
        }
        #expect((error as? ParseError)?.reason.hasPrefix("record 2: ") == true)
    }

    @Test("JSON sequences: business code, key path and models per record")
    func wrapped() {
        let checked = JSONSequenceParser(JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))
        Feeding.checkFails(checked, Self.seq("␞{\"code\":0,\"data\":5}\n␞{\"code\":3,\"msg\":\"stop\"}\n"), before: [5],
                           head: Self.jsonSeq) {
            Self.isBusinessCode($0, 3, message: "stop")
        }
        // A record whose JSON parses fails for what it holds even without its LF.
        Feeding.checkFails(checked, Self.seq("␞{\"code\":0,\"data\":5}\n␞{\"code\":0}"), before: [5], head: Self.jsonSeq) {
            ($0 as? ParseError)?.kind == .keyPath && ($0 as? ParseError)?.reason.hasPrefix("record 2: ") == true
        }
        let models = JSONSequenceParser(ModelParser(Item.self))
        Feeding.check(models, Self.seq("␞{\"id\":1,\"name\":\"a\"}\n␞{\"id\":2,\"na␞{\"id\":3,\"name\":\"c\"}\n"),
                      [Item(id: 1, name: "a"), Item(id: 3, name: "c")], head: Self.jsonSeq)
    }

    @Test("JSON sequences: a record over the limit throws")
    func recordLimit() {
        #expect(JSONSequenceParser(maxRecordLength: 6).maxRecordLength == 6)
        Feeding.check(JSONSequenceParser(maxRecordLength: 6), Self.seq("␞[1,2]\n␞[3,4]\n"), [[1, 2], [3, 4]], head: Self.jsonSeq)
        Feeding.checkFails(JSONSequenceParser(maxRecordLength: 6), Self.seq("␞[1,2]\n␞[1,2,3]\n"), before: [[1, 2]],
                           head: Self.jsonSeq) {
            $0 as? ParseError == ParseError(parser: "json-seq", reason: "a record is longer than the limit of 6 bytes", kind: .limit)
        }
    }

    @Test("JSON sequences: begin forgets an unfinished record")
    func beginForgets() throws {
        var parser = JSONSequenceParser()
        try parser.begin(Self.jsonSeq)
        #expect(try parser.parse(Data(Self.seq("␞[1]\n␞[2,"))) == [[1]])
        try parser.begin(Self.jsonSeq)
        #expect(try parser.parse(Data(Self.seq("3]\n␞[4]\n"))) == [])
        #expect(try parser.finish() == [[4]])
    }
}
