import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// `ModelParser` with a business code and a content key path decodes the body in one pass of
/// `JSONDecoder`; what it gives, value or error, must be what the JSON step followed by the
/// converter gives.
@Suite struct ModelKeyPathTests {
    /// A member of the documents below.
    struct Address: Codable, Equatable { var street: String; var zip: String? }

    /// The model through `ModelParser`, and through `JSONParser` then `CodableConverter`.
    func both<T: Decodable & Equatable & Sendable>(_ type: T.Type, _ text: String, _ json: JSONParser,
                                                   converter: CodableConverter = CodableConverter())
        -> (parser: Result<T, any Error>, steps: Result<T, any Error>) {
        let registry = ModelRegistry()
        registry.defaultConverter = converter
        let response = Response(url: nil, status: 200, headerFields: [.contentType: "application/json"], data: Data(text.utf8))
        let parser = Result { try ModelParser(type, json: json, registry: registry).parse(response) }
        let steps = Result { try converter.convert(json.parse(response), to: type, name: nil) }
        return (parser, steps)
    }

    /// Both ways give equal values, or errors that say the same.
    func expectSame<T: Decodable & Equatable & Sendable>(_ type: T.Type, _ text: String, _ json: JSONParser,
                                                         sourceLocation: SourceLocation = #_sourceLocation) {
        let (parser, steps) = both(type, text, json)
        switch (parser, steps) {
        case (.success(let lhs), .success(let rhs)):
            #expect(lhs == rhs, "\(text)", sourceLocation: sourceLocation)
        case (.failure(let lhs), .failure(let rhs)):
            #expect("\(lhs)" == "\(rhs)", "\(text)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(text): ModelParser \(parser), JSON step and converter \(steps)", sourceLocation: sourceLocation)
        }
    }

    static let envelope = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")

    @Test func theModelBehindTheKeyPath() throws {
        let text = #"{"code": "0", "message": "ok", "content": {"entrance": [{"street": "Elm 1", "zip": "12"}, {"street": "Oak 2"}]}}"#
        let (parser, _) = both([Address].self, text, Self.envelope)
        #expect(try parser.get() == [Address(street: "Elm 1", zip: "12"), Address(street: "Oak 2")])
        expectSame([Address].self, text, Self.envelope)
        expectSame(Address.self, text, JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance/1"))
        expectSame(String.self, text, JSONParser(contentKeyPath: "content/entrance/0/street"))
        // The body's digits, where `JSON` would have kept the nearest Double.
        let (big, _) = both(UInt64.self, #"{"data": {"big": 18446744073709551615}}"#, JSONParser(contentKeyPath: "data/big"))
        #expect(try big.get() == .max)
    }

    @Test func aWrongBusinessCodeIsTheBusinessError() throws {
        let text = #"{"code": 1001, "message": "token expired", "content": {"entrance": []}}"#
        let (parser, _) = both([Address].self, text, Self.envelope)
        guard case .failure(NetworkError.businessCode(let code, let message)) = parser else {
            Issue.record("expected a business code error, got \(parser)"); return
        }
        #expect(code == 1001 && message == "token expired")
        expectSame([Address].self, text, Self.envelope)
        expectSame([Address].self, #"{"content": {"entrance": []}}"#, Self.envelope)
        expectSame([Address].self, #"{"code": [0], "content": {"entrance": []}}"#, Self.envelope)
    }

    @Test func aKeyPathThatLeadsNowhereNamesWhere() throws {
        let (parser, _) = both([Address].self, #"{"code": 0, "content": {"exit": []}}"#, Self.envelope)
        guard case .failure(let error as ParseError) = parser else { Issue.record("got \(parser)"); return }
        #expect(error == ParseError(parser: "json", reason: "no key \"entrance\"", keyPath: "content/entrance", kind: .keyPath))
        for text in [#"{"code": 0, "content": {"exit": []}}"#, #"{"code": 0, "content": []}"#, #"{"code": 0, "content": 3}"#,
                     #"{"code": 0}"#, "[]", #"{"code": 0, "content": {"entrance": [1]}"#, ""] {
            expectSame([Address].self, text, Self.envelope)
        }
        for path in ["content/entrance/2", "content/entrance/x", "content/entrance/-1", "content/entrance/0/street/z"] {
            expectSame(Address.self, #"{"code": 0, "content": {"entrance": [{"street": "a"}, {"street": "b"}]}}"#,
                       JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: JSONKeyPath(path)))
        }
    }

    @Test func aModelThatDoesNotFitNamesTypeAndPathBelowTheContent() throws {
        let text = #"{"code": 0, "content": {"entrance": [{"street": "a"}, {"street": 1}]}}"#
        let (parser, _) = both([Address].self, text, Self.envelope)
        #expect(throws: ParseError(parser: "model", reason: "cannot decode Array<Address>: expected String at 1/street", kind: .model)) {
            try parser.get()
        }
        expectSame([Address].self, text, Self.envelope)
        expectSame([Address].self, #"{"code": 0, "content": {"entrance": [{"zip": "1"}]}}"#, Self.envelope)
        expectSame([Address].self, #"{"code": 0, "content": {"entrance": [null]}}"#, Self.envelope)
        expectSame([Address].self, #"{"code": 0, "content": {"entrance": {}}}"#, Self.envelope)
    }

    /// A model's own error comes out as it was thrown.
    @Test func aModelsOwnErrorIsKept() throws {
        struct Refused: Error {}
        /// A model that refuses every value.
        struct Picky: Decodable, Equatable, Sendable { init(from decoder: any Decoder) throws { throw Refused() } }
        let (parser, steps) = both(Picky.self, #"{"code": 0, "content": {"entrance": 1}}"#, Self.envelope)
        #expect(throws: Refused.self) { try parser.get() }
        #expect(throws: Refused.self) { try steps.get() }
    }

    /// The converter's strategies apply; a key strategy goes the JSON step's way, with the same result.
    @Test func theConvertersDecoderIsUsed() throws {
        /// A snake-case key.
        struct Named: Codable, Equatable, Sendable { var firstName: String }
        let snakeDecoder = JSONDecoder()
        snakeDecoder.keyDecodingStrategy = .convertFromSnakeCase
        let snake = CodableConverter(decoder: snakeDecoder)
        let text = #"{"code": 0, "the_content": {"first_name": "Ann"}}"#
        let (parser, steps) = both(Named.self, text, JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "the_content"), converter: snake)
        #expect(try parser.get() == Named(firstName: "Ann"))
        #expect(try steps.get() == Named(firstName: "Ann"))
        let secondsDecoder = JSONDecoder()
        secondsDecoder.dateDecodingStrategy = .secondsSince1970
        let converter = CodableConverter(decoder: secondsDecoder)
        let (dated, _) = both([Date].self, #"{"code": 0, "data": [86400]}"#, JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"),
                              converter: converter)
        #expect(try dated.get() == [Date(timeIntervalSince1970: 86400)])
    }

    /// The converter alone, on a `JSON` value: its errors name the type, what was expected and the path.
    @Test func converterErrorsNameTypeAndPath() throws {
        let json = try JSON(data: Data(#"[{"street": "a"}, {"street": 1}]"#.utf8))
        #expect(throws: ParseError(parser: "model", reason: "cannot decode Array<Address>: expected String at 1/street", kind: .model)) {
            try CodableConverter().convert(json, to: [Address].self, name: nil)
        }
    }

    /// Optional members of random documents.
    struct Sample: Codable, Equatable, Sendable { var id: Int?; var name: String?; var tags: [String]?; var child: JSON? }
    /// Required members: mostly failures, to compare.
    struct Strict: Codable, Equatable, Sendable { var id: Int; var tags: [JSON] }

    /// Random envelopes (seeded), random routes into them: both ways alike.
    /// Foundation's scanner traps on 513 opening brackets and nothing after (see
    /// `FoundationJSONInput`): each way to a model refuses such text as malformed instead.
    @Test(arguments: [(#"{"a":["#, 256, "["), ("[", 513, ""), ("[", 513, " \n"), ("[1, {", 1, "")])
    func textEndingInsideAContainerIsMalformed(_ opening: String, _ count: Int, _ end: String) throws {
        let text = String(repeating: opening, count: count) + end
        for json in [JSONParser(), Self.envelope] {
            let (parser, _) = both([Address].self, text, json)
            guard case .failure(let error as ParseError) = parser else {
                Issue.record("expected a ParseError, got \(parser)"); continue
            }
            #expect(error.kind == .malformed, "\(error)")
        }
    }

    @Test func randomDocumentsAndRoutesDecodeTheSameBothWays() throws {
        var random = SeededGenerator(seed: 2026)
        let keys = ["code", "content", "id", "name", "tags", "child", "0", "1"]
        func value(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2: return .int(Int64.random(in: -2...2, using: &random))
            case 3: return .double(Double(Int.random(in: -300...300, using: &random)) / 8)
            case 4: return .string(["0", "a", "", "1001"].randomElement(using: &random) ?? "a")
            case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in value(depth + 1) })
            default:
                let members = (0..<Int.random(in: 0..<5, using: &random)).map { _ in (keys.randomElement(using: &random) ?? "id", value(depth + 1)) }
                return .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
            }
        }
        for _ in 0..<1500 {
            let text = String(decoding: try value(0).serialized(), as: UTF8.self)
            let path = (0..<Int.random(in: 1...3, using: &random)).map { _ in keys.randomElement(using: &random) ?? "content" }
            let json = JSONParser(businessCode: Bool.random(using: &random) ? BusinessCodeCheck(codeKeyPath: "code") : nil, contentKeyPath: JSONKeyPath(path.joined(separator: "/")))
            expectSame(Sample.self, text, json)
            expectSame([Sample].self, text, json)
            expectSame(Strict.self, text, json)
            expectSame(JSON.self, text, json)
        }
    }
}
