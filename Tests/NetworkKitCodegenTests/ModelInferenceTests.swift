import Foundation
import NetworkKit
import NetworkKitCodegen
import Testing

/// `generate-model`: the inferred types (Golden/SampleUser.swift and FeedEntrance.swift, compiled
/// in this target) decode the samples they came from, and every shape is inferred as documented.
@Suite struct ModelInferenceTests {
    @Test func theGeneratedUserDecodesItsSample() throws {
        guard let sample = Files.text(Files.fixture("samples/user.json")) else { return }
        let user = try JSONDecoder().decode(SampleUser.self, from: Data(sample.utf8))
        #expect(user.userId == 42 && user.score == 9.5 && user.class == "premium" && user.default && user._2fa)
        #expect(user.firstName == "Ada" && user.nickname == nil)
        #expect(user.address.geo.lng == 13.4 && user.address.streetName == "Main St")
        #expect(user.ratings == [1, 2.5, 3] && user.matrix == [[1, 2], [3, 4]] && user.mixed == [1, "two"])
        #expect(user.friends.map(\.id) == [1, 2, 3.5])
        #expect(user.friends[1].name == nil && user.friends[1].meta == nil && user.friends[1].score == 3)
        #expect(user.friends[2].meta?.y == "z")
    }

    @Test func theGeneratedEntranceDecodesThroughAKeyPath() async throws {
        guard let sample = Files.text(Files.fixture("samples/feed.json")) else { return }
        let parser = ModelParser([FeedEntrance].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance"))
        let entrances = try parser.parse(Response(url: nil, status: 200, data: Data(sample.utf8)))
        #expect(entrances.map(\.name) == ["Spring sale", "New arrivals"])
        #expect(entrances.map(\.badge) == [nil, "new"])
    }

    @Test func shapes() throws {
        let source = try ModelInference.generate(sample: #"""
            [{"a": 1, "b": [{"c": null}, {"c": 2}], "d": "x", "e": {}},
             {"a": 2.0, "b": [], "f": [null, 1]}]
            """#, name: "row")
        #expect(source.contains("// The sample holds an array of these: decode `[Row]`."))
        #expect(source.contains("struct Row: Codable, Hashable, Sendable {"))
        #expect(source.contains("    var a: Double\n"))
        #expect(source.contains("    var b: [B]\n"))
        #expect(source.contains("        var c: Int?\n"))
        #expect(source.contains("    var d: String?\n"))
        #expect(source.contains("    var e: E?\n"))
        #expect(source.contains("    var f: [Int?]?\n"))
        #expect(!source.contains("import NetworkKit"))
    }

    @Test func notAnObject() {
        #expect(throws: GeneratorError.self) { try ModelInference.generate(sample: "[1, 2]", name: "X") }
        #expect(throws: GeneratorError.self) { try ModelInference.generate(sample: "{\"a\": [1]}", name: "X", keyPath: "a") }
        #expect(throws: GeneratorError.self) { try ModelInference.generate(sample: "{\"a\": ", name: "X") }
    }

    @Test func names() {
        #expect(SwiftNames.property("user_id") == "userId")
        #expect(SwiftNames.property("URL") == "url")
        #expect(SwiftNames.property("HTTPCode") == "httpCode")
        #expect(SwiftNames.property("class") == "`class`")
        #expect(SwiftNames.property("2fa") == "_2fa")
        #expect(SwiftNames.property("first-name") == "firstName")
        #expect(SwiftNames.type("simple-user") == "SimpleUser")
        #expect(SwiftNames.type("Error") == "ErrorModel")
        #expect(SwiftNames.singular("entries") == "entry")
        #expect(SwiftNames.singular("status") == "status")
    }
}
