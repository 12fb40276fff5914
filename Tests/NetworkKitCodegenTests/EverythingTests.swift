import Foundation
import NetworkKit
import Testing

/// Runs the code in Golden/Everything.swift: the requests it builds, and its models decoding and
/// encoding JSON through the kit's parsers.
@Suite struct EverythingTests {
    @Test func pathQueryAndHeaderParameters() throws {
        let id = UUID()
        let request = Everything.getItem(itemId: 7, xRequestId: id, expand: [.owner, .tags], ifVersion: 3)
        #expect(request.target == .path("/items/7"))
        #expect(request.method == .get)
        #expect(request.parameters == ["expand": ["owner", "tags"]])
        #expect(request.headerFields == [HTTPField.Name("X-Request-ID")!: id.uuidString, HTTPField.Name("If-Version")!: "3"])
        #expect(request.cache == CachePolicy(lifetime: .seconds(30)))
        let parser = try #require(request.parser as? ModelParser<Everything.Item>)
        #expect(parser.json.businessCode == BusinessCodeCheck(codeKeyPath: "code", messageKeyPaths: ["msg"]))
        #expect(parser.json.contentKeyPath == "data")
        #expect(!parser.json.usesServiceEnvelope)
        #expect(parser.registry === Everything.models)

        let optional = Everything.listItems(limit: 5, sort: .desc, since: Date(timeIntervalSince1970: 0), minPrice: 1.5, inStock: true)
        #expect(optional.parameters == ["limit": 5, "sort": "desc", "since": "1970-01-01T00:00:00Z", "min_price": 1.5, "in_stock": true])
        #expect(Everything.listItems().parameters.isEmpty)
    }

    @Test func pathSegmentsAreEscaped() {
        #expect(Everything.exportFile(name: "a b/c?d", to: .directory(URL(fileURLWithPath: "/tmp"))).target == .path("/export/a%20b%2Fc%3Fd"))
    }

    @Test func bodies() throws {
        let item = Everything.Item(id: 1, name: "Dune", price: 9.5, kind: .eBook, createdAt: Date(timeIntervalSince1970: 86_400))
        let json = try Everything.replaceItem(itemId: 1, body: item)
        guard case .data(let data, let type) = json.body else {
            Issue.record("expected a JSON body, got \(json.body)")
            return
        }
        #expect(type == "application/json")
        #expect(String(decoding: data, as: UTF8.self)
                == #"{"created_at":"1970-01-02T00:00:00Z","id":1,"kind":"e-book","name":"Dune","price":9.5}"#)

        let form = Everything.createItem(name: "Dune", price: 9.5, kind: .book, labels: ["sf"])
        #expect(form.body == .form)
        #expect(form.method == .post)
        #expect(form.parameters == ["name": "Dune", "price": 9.5, "kind": "book", "labels": ["sf"]])

        let upload = Everything.uploadPhoto(itemId: 2, photo: Data([1, 2]), caption: "hi", tags: ["a", "b"])
        guard case .multipart(let multipart) = upload.body else {
            Issue.record("expected a multipart body, got \(upload.body)")
            return
        }
        #expect(multipart.parts.map(\.name) == ["photo", "caption", "tags", "tags"])
        #expect(multipart.parts.first?.contentType == "image/png")

        #expect(Everything.putRaw(itemId: 3, body: Data([9])).body == .data(Data([9]), contentType: "application/octet-stream"))
        #expect(Everything.putRaw(itemId: 3).body == .automatic)
        let download = Everything.exportFile(name: "x.zip", to: .file(URL(fileURLWithPath: "/tmp/x.zip")))
        #expect(download.download?.destination == .file(URL(fileURLWithPath: "/tmp/x.zip")))
    }

    @Test func modelsDecodeThroughTheEnvelope() throws {
        let body = #"""
            {"code": 0, "msg": "ok", "data": {"id": 1, "name": "Dune", "price": 9.5, "kind": "audio_book",
             "created_at": "2026-11-02T10:00:00.250Z", "ref_id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
             "checksum": "AQI=", "class": "A", "2fa": true, "first-name": "Ada",
             "owner": {"login": "ada", "data": null}, "tags": ["x"], "dimensions": [{"w": 1}], "rating": 2,
             "parent": null, "status": -1}}
            """#
        let item = try parse(body, with: Everything.getItem(itemId: 1, xRequestId: UUID()).parser)
        #expect(item.kind == .audioBook)
        #expect(item.createdAt == Date(timeIntervalSince1970: 1_793_613_600.25))
        #expect(item.checksum == Data([1, 2]))
        #expect(item.class == "A" && item._2fa == true && item.firstName == "Ada")
        #expect(item.owner == Everything.Item.Owner(login: "ada"))
        #expect(item.dimensions == [Everything.Item.Dimension(w: 1)])
        #expect(item.rating == .value2 && item.status == .minus1 && item.parent == nil)

        let failed = Result { try parse(#"{"code": 3, "msg": "sold out"}"#, with: Everything.getItem(itemId: 1, xRequestId: UUID()).parser) }
        guard case .failure(NetworkError.businessCode(let code, let message)) = failed else {
            Issue.record("expected a business-code error, got \(failed)")
            return
        }
        #expect(code == 3 && message == "sold out")

        let stats = try parse(#"{"code": "ok", "data": {"counts": {"a": 1}, "extra": [1, "x"], "matrix": [[1.5]]}}"#,
                              with: Everything.getStats().parser)
        #expect(stats.counts == ["a": 1] && stats.extra == [1, "x"] && stats.matrix == [[1.5]])
    }

    @Test func oneOfDecodesByDiscriminatorOrByTrying() throws {
        let circle = try parse(#"{"kind": "round", "radius": 2}"#, with: Everything.echoShape(body: .circle(.init(kind: "round", radius: 1))).parser)
        #expect(circle == .circle(.init(kind: "round", radius: 2)))
        let square = try JSONDecoder().decode(Everything.Shape.self, from: Data(#"{"kind": "Square", "side": 3}"#.utf8))
        #expect(square == .square(.init(kind: "Square", side: 3)))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Everything.Shape.self, from: Data(#"{"kind": "hexagon"}"#.utf8)) }
        #expect(String(decoding: try JSONEncoder().encode(square), as: UTF8.self).contains(#""side":3"#))

        let values = try JSONDecoder().decode([Everything.IDOrName].self, from: Data(#"[4, "four", {"id": 4}]"#.utf8))
        #expect(values == [.int(4), .string("four"), .itemSummary(.init(id: 4))])
    }

    @Test func problemMergesAllOf() throws {
        let problem = try JSONDecoder().decode(Everything.Problem.self, from: Data(#"{"title": "T", "status": 404, "detail": "D"}"#.utf8))
        #expect(problem == Everything.Problem(title: "T", status: 404, detail: "D"))
    }

    /// Runs `parser` on a 200 answer with `body`.
    private func parse<Output>(_ body: String, with parser: any ResponseParser<Output>) throws -> Output {
        try parser.parse(Response(url: nil, status: 200, headerFields: [.contentType: "application/json"], data: Data(body.utf8)))
    }
}
