import FixtureServer
import Foundation
@testable import NetworkKit
import NetworkKitTesting
import Testing

/// Header collections are swift-http-types' `HTTPFields` end to end: what a request sets, what
/// the service adds and what a server answers, with repeated fields and their order.
@Suite("Header fields")
struct HeaderFieldsTests {
    @Test("repeated response fields reach the app in order, apart where the transport keeps them apart",
          arguments: TransportKind.allCases)
    func repeatedResponseFields(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var answer = StubResponse.json(#"{"code": 0}"#)
        answer.headerFields.append(HTTPField(name: .link, value: "</a>; rel=next"))
        answer.headerFields.append(HTTPField(name: .wwwAuthenticate, value: "Basic realm=\"x\""))
        answer.headerFields.append(HTTPField(name: .link, value: "</b>; rel=prev"))
        answer.headerFields.append(HTTPField(name: .setCookie, value: "a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT"))
        answer.headerFields.append(HTTPField(name: .setCookie, value: "b=2"))
        let path = server.play(answer, as: "repeated")
        let service = transport.service(ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15)))
        let reply = try await service.reply(to: Request(path: path, parser: DataParser()))
        let fields = reply.head.headerFields
        // Set-Cookie is apart on both: URLSession's joined value is split back.
        #expect(fields[values: .setCookie] == ["a=1; Expires=Wed, 09 Jun 2027 10:18:14 GMT", "b=2"])
        #expect(fields[.link] == "</a>; rel=next, </b>; rel=prev")
        switch transport {
        case .nio:
            #expect(fields[values: .link] == ["</a>; rel=next", "</b>; rel=prev"])
        case .urlSession:
            // FoundationNetworking joins repeated fields into one value before the kit sees them.
            #expect(fields[values: .link] == ["</a>; rel=next, </b>; rel=prev"])
        }
        #expect(fields[.wwwAuthenticate] == "Basic realm=\"x\"")
    }

    @Test("a request's own fields of a name win over the service's common fields of that name; the rest go in order",
          arguments: TransportKind.allCases)
    func commonAndOwnFields(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15))
        configuration.commonHeaderFields = {
            var fields: HTTPFields = [.acceptLanguage: "en", .common: "one"]
            fields.append(HTTPField(name: .common, value: "two"))
            return fields
        }
        let service = transport.service(configuration)
        let plain = try await service.send(Request(path: "/echo", parser: JSONParser()))
        #expect(plain["headers"]?["X-Common"] == "one, two")
        #expect(plain["headers"]?["Accept-Language"] == "en")
        var own: HTTPFields = [.acceptLanguage: "fr"]
        own.append(HTTPField(name: .acceptLanguage, value: "de"))
        let overridden = try await service.send(Request(path: "/echo", headerFields: own, parser: JSONParser()))
        #expect(overridden["headers"]?["Accept-Language"] == "fr, de")
        #expect(overridden["headers"]?["X-Common"] == "one, two")
    }

    @Test("a request's own fields go out in their order, after the kit's, and replace the kit's of a name")
    func ownFieldsKeepTheirOrder() async throws {
        let stub = StubTransport()
        stub.answer(nil, .path("/order"), with: .json("{}"))
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.test")), transport: stub)
        var own: HTTPFields = [.common: "b1"]
        own.append(HTTPField(name: .link, value: "a"))
        own.append(HTTPField(name: .common, value: "b2"))
        own.append(HTTPField(name: .acceptEncoding, value: "identity"))
        _ = try await service.send(Request(path: "/order", headerFields: own, parser: JSONParser()))
        let sent = try #require(stub.requests.first).request.head.headerFields
        #expect(Array(sent.suffix(4)) == Array(own))
        #expect(sent[values: .acceptEncoding] == ["identity"], "the kit's Accept-Encoding gave way to the request's")
    }

    @Test("an HTTP status failure carries the answer's fields")
    func statusFailureFields() async throws {
        let stub = StubTransport()
        var answer = StubResponse.json(#"{"error": "busy"}"#, status: 503, headerFields: [.retryAfter: "7"])
        answer.headerFields.append(HTTPField(name: .wwwAuthenticate, value: "Bearer"))
        stub.answer(.get, .path("/busy"), with: answer)
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.test")), transport: stub)
        let result = await service.completion(of: Request(path: "/busy", parser: JSONParser()))
        guard case .httpStatus(503, _, let fields)? = result.failure else {
            Issue.record("got \(result)")
            return
        }
        #expect(fields[.retryAfter] == "7")
        #expect(result.failure?.header(.retryAfter) == "7")
        #expect(result.failure?.header(.wwwAuthenticate) == "Bearer")
        #expect(NetworkError.cancelled.header(.retryAfter) == nil)
    }
}

extension HTTPField.Name {
    /// `Link` (RFC 8288), which swift-http-types does not name.
    static var link: Self { Self("Link")! }
    /// `X-Common`, a field the tests' services send with every request.
    static var common: Self { Self("X-Common")! }
}
