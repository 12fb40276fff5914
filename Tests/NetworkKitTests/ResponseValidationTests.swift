import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// The service-wide response checks and the business status of a success, against the fixture
/// server on both transports.
@Suite("Response validation")
struct ResponseValidationTests {
    private static func fixture(_ transport: TransportKind, _ validation: ResponseValidation) async throws -> Fixture {
        let fixture = try await Fixture.start(transport: transport)
        fixture.service.configure { $0.responseValidation = validation }
        return fixture
    }

    @Test("a business code fails every request of the service, whatever its parser", arguments: TransportKind.allCases)
    func businessCode(transport: TransportKind) async throws {
        let check = BusinessCodeCheck(codeKeyPath: "code", okValues: [0, 200], messageKeyPaths: ["msg", "message"])
        let fixture = try await Self.fixture(transport, ResponseValidation(businessCode: check))
        defer { fixture.server.stop() }
        let failed = await fixture.service.result(of: Request(path: "/json/feed?code=1001&message=token%20expired"))
        guard case .businessCode(1001, "token expired") = failed.failure else { Issue.record("got \(failed)"); return }
        let quoted = await fixture.service.result(of: Request(path: "/json/feed?code=200&quoted=1", parser: StringParser()))
        #expect(quoted.success != nil)
        let request = Request(path: "/json/feed")
        _ = try await fixture.service.send(request)
        #expect(request.businessStatus == BusinessStatus(code: 0, message: "ok"))
    }

    @Test("status, content type, required keys, shape and rules, in that order", arguments: TransportKind.allCases)
    func checksInOrder(transport: TransportKind) async throws {
        let validation = ResponseValidation(
            acceptableStatusCodes: 200..<201, acceptableContentTypes: ["application/json", "+json", "text/plain"],
            requiredKeyPaths: ["code", "content"], shape: ["code": .integer],
            rules: [{ response in
                if response.url?.path.hasSuffix("/json/array") == true { throw RuleFailure() }
            }])
        let fixture = try await Self.fixture(transport, validation)
        defer { fixture.server.stop() }
        let service = fixture.service
        // The request accepts 202; the service does not.
        let accepted = Request(path: "/status/202")
        accepted.acceptableStatusCodes = 200..<300
        guard case .httpStatus(202, _, _) = await service.result(of: accepted).failure else {
            Issue.record("a 202 passed the service's statuses"); return
        }
        let html = await service.result(of: Request(path: "/html", parser: StringParser()))
        #expect(html.failure.flatMap(\.parseError)?.kind == .contentType)
        let missing = await service.result(of: Request(path: "/json/array", parser: JSONParser()))
        #expect(missing.failure.flatMap(\.parseError)?.kind == .keyPath)
        let malformed = await service.result(of: Request(path: "/json/malformed"))
        #expect(malformed.failure.flatMap(\.parseError)?.kind == .malformed)
        _ = try await service.send(Request(path: "/json/feed", parser: JSONParser()))
        let wrongShape = await service.result(of: Request(path: "/json/feed?code=1.5"))
        #expect(wrongShape.failure.flatMap(\.parseError)?.kind == .shape)
    }

    @Test("a rule's error: a NetworkError as it is, another as a custom parse error", arguments: TransportKind.allCases)
    func rules(transport: TransportKind) async throws {
        let validation = ResponseValidation(rules: [
            { response in if response.headerFields[HTTPField.Name("X-Never")!] == nil, response.url?.query == "kind=network" { throw NetworkError.cancelled } },
            { response in if response.url?.query == "kind=other" { throw RuleFailure() } },
        ])
        let fixture = try await Self.fixture(transport, validation)
        defer { fixture.server.stop() }
        let network = await fixture.service.result(of: Request(path: "/json/small?kind=network"))
        guard case .cancelled = network.failure else { Issue.record("got \(network)"); return }
        let other = await fixture.service.result(of: Request(path: "/json/small?kind=other")).failure
        #expect(other.flatMap(\.parseError)?.kind == .custom)
        #expect(other.flatMap(\.parseError)?.underlying is RuleFailure)
    }

    @Test("a request opts out; a HEAD answer and a download skip the body checks", arguments: TransportKind.allCases)
    func optOutAndBodiless(transport: TransportKind) async throws {
        let validation = ResponseValidation(acceptableContentTypes: ["application/json"], requiredKeyPaths: ["nowhere"])
        let fixture = try await Self.fixture(transport, validation)
        defer { fixture.server.stop() }
        let html = Request(path: "/html", parser: StringParser())
        html.skippedServiceDefaults = [.responseValidation]
        #expect(try await fixture.service.send(html).contains("Not JSON"))
        _ = try await fixture.service.send(Request(path: "/json/small", method: .head))
        let folder = try TestFolder()
        let download = Request(path: "/json/small", downloadTo: .file(folder.url.appendingPathComponent("small.json")))
        _ = try await fixture.service.send(download)
        let page = Request(path: "/html", downloadTo: .file(folder.url.appendingPathComponent("page.html")))
        let typed = await fixture.service.result(of: page)
        #expect(typed.failure.flatMap(\.parseError)?.kind == .contentType)
    }

    @Test("the business status of a success through the service's envelope", arguments: TransportKind.allCases)
    func businessStatus(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure {
            $0.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code", messageKeyPaths: ["message"]), contentKeyPath: "content")
        }
        let reply = try await fixture.service.reply(to: Request(path: "/json/small", parser: JSONParser()))
        #expect(reply.value["name"] == "small")
        #expect(reply.businessStatus == BusinessStatus(code: 0, message: "ok"))
        let models = Request(path: "/json/feed?message=fine", parser: ModelParser([Entrance].self, json: JSONParser(contentKeyPath: "content/entrance")))
        #expect(try await fixture.service.send(models).count == 2)
        #expect(models.businessStatus == BusinessStatus(code: 0, message: "fine"))
        // Without an envelope there is none.
        let plain = Request(path: "/json/small", parser: JSONParser())
        plain.skippedServiceDefaults = [.envelope]
        _ = try await fixture.service.send(plain)
        #expect(plain.businessStatus == nil)
    }

    @Test("media type lists: exact, type/*, */*, +suffix, case ignored")
    func mediaTypes() {
        #expect(MediaTypeList.accepts(["application/json"], type: "application/json"))
        #expect(MediaTypeList.accepts(["Application/JSON"], type: "application/json"))
        #expect(MediaTypeList.accepts(["text/*"], type: "text/html"))
        #expect(!MediaTypeList.accepts(["text/*"], type: "texts/html"))
        #expect(MediaTypeList.accepts(["*/*"], type: "image/png"))
        #expect(MediaTypeList.accepts(["+json"], type: "application/problem+json"))
        #expect(!MediaTypeList.accepts(["+json"], type: "application/json"))
        #expect(!MediaTypeList.accepts(["application/json"], type: ""))
    }
}

private struct RuleFailure: Error {}

extension NetworkError {
    /// The parse error this is, if it is one.
    fileprivate var parseError: ParseError? {
        if case .parse(let error) = self { return error }
        return nil
    }
}
