import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// `Encodable` values as bodies and parameters, as the server receives them.
@Suite("Encodable in")
struct EncodableTests {
    struct NewOrder: Encodable {
        var item: Int
        var note: String
        var placedAt: Date
    }

    struct Search: Encodable {
        var q: String
        var page: Int
        var filter: Filter?
        struct Filter: Encodable { var tag: String }
    }

    @Test(arguments: TransportKind.allCases) func aJSONBodyFromAnEncodableWithItsEncoder(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let request = Request(path: "/echo", method: .post, parameters: ["trace": "1"], parser: JSONParser())
        request.body = try .json(NewOrder(item: 42, note: "two, please", placedAt: Date(timeIntervalSince1970: 0)), encoder: encoder)
        let echo = try await fixture.service.send(request)
        let sent = try JSON(data: Data((echo["body"]?.stringValue ?? "").utf8))
        #expect(sent == ["item": 42, "note": "two, please", "placed_at": "1970-01-01T00:00:00Z"])
        #expect(echo["headers"]?["Content-Type"] == "application/json")
        #expect(echo["query"] == "trace=1")   // a data body puts the parameters in the query
    }

    @Test func aValueTheEncoderRefusesIsAnInvalidRequest() {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .throw
        #expect(throws: NetworkError.self) { try RequestBody.json(["x": Double.nan], encoder: encoder) }
        do {
            _ = try RequestBody.json(["x": Double.nan], encoder: encoder)
        } catch {
            guard case .invalidRequest(let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.hasPrefix("cannot encode Dictionary<String, Double> as JSON"))
        }
    }

    @Test(arguments: TransportKind.allCases) func parametersFromAnEncodableInTheQueryAndInAForm(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let search = Search(q: "a b", page: 2, filter: .init(tag: "swift"))
        let get = Request(path: "/echo", parameters: try .encoding(search), parser: JSONParser())
        #expect(try await fixture.service.send(get)["query"] == "filter%5Btag%5D=swift&page=2&q=a%20b")
        let post = Request(path: "/echo", method: .post, parameters: try .encoding(Search(q: "x", page: 1)), parser: JSONParser())
        let echo = try await fixture.service.send(post)
        #expect(echo["body"] == "page=1&q=x")   // a nil property is left out, as JSONEncoder leaves it out
        let json = Request(path: "/echo", method: .post, parameters: try .encoding(search), parser: JSONParser())
        json.body = .json
        let sent = try JSON(data: Data((try await fixture.service.send(json)["body"]?.stringValue ?? "").utf8))
        #expect(sent == ["q": "a b", "page": 2, "filter": ["tag": "swift"]])
    }

    @Test func parametersMustEncodeAsAnObject() {
        for (value, kind) in [(AnyEncodable([1, 2]), "an array"), (AnyEncodable("text"), "a string"), (AnyEncodable(3), "a number")] {
            do {
                _ = try [String: JSON].encoding(value)
                Issue.record("\(kind) must not be parameters")
            } catch {
                guard case .invalidParameter(_, let reason) = error else { Issue.record("got \(error)"); continue }
                #expect(reason == "parameters must encode as a JSON object, not \(kind)")
            }
        }
    }

    private struct AnyEncodable: Encodable {
        let encode: (any Encoder) throws -> Void
        init(_ value: some Encodable) { encode = value.encode(to:) }
        func encode(to encoder: any Encoder) throws { try encode(encoder) }
    }
}
