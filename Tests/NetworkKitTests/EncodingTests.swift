import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

@Suite("Requests as sent")
struct EncodingTests {
    @Test func formEncodingEscapesPerRFC3986() {
        let encoded = FormEncoder.encode([
            "q": "a b&c=d+e/ü", "tags": ["x", "y"], "user": ["name": "Ann", "age": 3], "empty": nil,
        ])
        #expect(encoded == "empty=&q=a%20b%26c%3Dd%2Be%2F%C3%BC&tags%5B%5D=x&tags%5B%5D=y&user%5Bage%5D=3&user%5Bname%5D=Ann")
    }

    /// The kit asks for the codings it inflates when the transport leaves inflating to it; a
    /// request's or the service's own `Accept-Encoding`, in any case, wins.
    @Test func acceptEncodingIsAskedForUnlessNamed() throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let options = RequestOptions(target: .url(url), method: .get, parameters: [:], headerFields: [:])
        var draft = RequestDraft(options)
        #expect(try OutgoingRequestBuilder.build(draft, options: options, timeout: .seconds(15), acceptEncoding: "gzip, deflate")
            .head.headerFields[.acceptEncoding] == "gzip, deflate")
        #expect(try OutgoingRequestBuilder.build(draft, options: options, timeout: .seconds(15)).head.headerFields[.acceptEncoding] == nil)
        draft.headerFields = [.acceptEncoding: "identity"]
        let named = try OutgoingRequestBuilder.build(draft, options: options, timeout: .seconds(15), acceptEncoding: "gzip, deflate")
        #expect(named.head.headerFields[.acceptEncoding] == "identity")
        #expect(named.head.headerFields.count == 1)
    }

    /// Every request offers the service's codings, in its order, over the wire on each transport;
    /// none offers `identity` alone.
    @Test(arguments: TransportKind.allCases) func theServiceOffersItsCodings(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let offered = { try await fixture.service.send(Request(path: "/echo", parser: JSONParser()))["headers"]?["Accept-Encoding"] }
        #expect(try await offered() == "gzip, deflate, br, zstd")
        fixture.service.configure { $0.acceptedCodings = [.zstd, .gzip] }
        #expect(try await offered() == "zstd, gzip")
        fixture.service.configure { $0.acceptedCodings = [] }
        #expect(try await offered() == "identity")
    }

    @Test(arguments: TransportKind.allCases) func getParametersGoInTheQuery(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo?x=1", parameters: ["name": "a b", "n": 2], parser: JSONParser())
        let echo = try await fixture.service.send(request)
        #expect(echo["method"] == "GET")
        #expect(echo["query"] == "x=1&n=2&name=a%20b")
    }

    @Test("every method is sent as set, those swift-http-types names and an extension method",
          arguments: TransportKind.allCases, [.get, .post, .put, .patch, .delete, .options, HTTPRequest.Method("PURGE")!])
    func methodsAreSentAsSet(transport: TransportKind, method: HTTPRequest.Method) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let echo = try await fixture.service.send(Request(path: "/echo", method: method, parser: JSONParser()))
        #expect(echo["method"]?.stringValue == method.rawValue)
    }

    @Test(arguments: TransportKind.allCases) func headIsSentAndHasNoBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .head)
        let data = try await fixture.service.send(request)
        #expect(data.isEmpty)
        #expect(request.responseHead?.status.code == 200)
    }

    @Test(arguments: TransportKind.allCases) func postParametersAreAFormBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .post, parameters: ["user": "ann", "pass": "p&ss w"], parser: JSONParser())
        let echo = try await fixture.service.send(request)
        #expect(echo["body"] == "pass=p%26ss%20w&user=ann")
        #expect(echo["headers"]?["Content-Type"]?.stringValue?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test(arguments: TransportKind.allCases) func jsonBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", method: .put, parameters: ["a": [1, 2], "b": ["c": true]], parser: JSONParser())
        request.body = .json
        let echo = try await fixture.service.send(request)
        let sent = try JSON(data: Data((echo["body"]?.stringValue ?? "").utf8))
        #expect(sent == ["a": [1, 2], "b": ["c": true]])
        #expect(echo["headers"]?["Content-Type"] == "application/json")
    }

    /// One `RequestBody` decides where parameters go: a raw or file body puts them in the query.
    @Test(arguments: TransportKind.allCases) func rawAndFileBodiesPutParametersInTheQuery(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let raw = Request(path: "/echo", method: .post, parameters: ["id": 7], parser: JSONParser())
        raw.body = .data(Data("<x/>".utf8), contentType: "application/xml")
        let echoed = try await fixture.service.send(raw)
        #expect(echoed["query"] == "id=7" && echoed["body"] == "<x/>" && echoed["headers"]?["Content-Type"] == "application/xml")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nk-body-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("from disk".utf8).write(to: file)
        let upload = Request(path: "/echo", method: .put, parameters: ["name": "a b"], parser: JSONParser())
        upload.body = .file(file, contentType: "text/plain")
        let uploaded = try await fixture.service.send(upload)
        #expect(uploaded["query"] == "name=a%20b" && uploaded["body"] == "from disk")

        let missing = Request(path: "/echo", method: .put, parser: JSONParser())
        missing.body = .file(file.appendingPathExtension("gone"), contentType: "text/plain")
        guard case .failure(.invalidRequest) = await fixture.service.result(of: missing) else {
            Issue.record("a missing body file must fail before sending"); return
        }

        let formOnGet = Request(path: "/echo", method: .delete, parameters: ["a": 1], parser: JSONParser())
        formOnGet.body = .form
        let deleted = try await fixture.service.send(formOnGet)
        #expect(deleted["body"] == "a=1" && deleted["query"] == "")
    }

    @Test(arguments: TransportKind.allCases) func headersAreSent(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/echo", headerFields: [HTTPField.Name("X-Trace")!: "abc"], parser: JSONParser(contentKeyPath: "headers/X-Trace"))
        #expect(try await fixture.service.send(request) == "abc")
    }

    @Test(arguments: TransportKind.allCases) func baseAndCDNURLsSwitchAtRuntime(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let other = try await FixtureServer.start()
        defer { other.stop() }
        let service = fixture.service
        service.configure { $0.cdnURL = other.baseURL }
        let viaCDN = Request(path: "/echo", parser: JSONParser(contentKeyPath: "host"))
        viaCDN.useCDN = true
        #expect(try await service.send(viaCDN).stringValue == "127.0.0.1:\(other.port)")
        service.configure { $0.baseURL = URL(string: other.url("/json")) }
        let switched = try await service.send(Request(path: "small", parser: JSONParser(contentKeyPath: "content/id")))
        #expect(switched == 42)
        #expect(throws: NetworkError.self) {
            try service.configuration.environment.resolve("https://x.test/a", useCDN: false)
        }
    }
}
