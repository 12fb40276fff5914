import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Bad input gets a typed error")
struct ErrorTests {
    @Test(arguments: TransportKind.allCases) func malformedJSON(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.service.completion(of: Request(path: "/json/malformed", parser: JSONParser()))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.parser == "json")
        #expect(error.reason.contains("malformed JSON"))
    }

    @Test(arguments: TransportKind.allCases) func wrongContentType(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let lenient = await fixture.service.completion(of: Request(path: "/html", parser: JSONParser()))
        guard case .parse(let error) = lenient.failure else { Issue.record("got \(lenient)"); return }
        #expect(error.reason.contains("text/html"))
        let strict = JSONParser(acceptableContentTypes: ["application/json", "+json"])
        let refused = await fixture.service.completion(of: Request(path: "/html", parser: strict))
        guard case .parse(let strictError) = refused.failure else { Issue.record("got \(refused)"); return }
        #expect(strictError.reason.contains("Content-Type \"text/html\" is not one of"))
        #expect(try await fixture.service.send(Request(path: "/json/small", parser: strict))["code"] == 0)
    }

    @Test(arguments: TransportKind.allCases) func emptyBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.service.completion(of: Request(path: "/empty", parser: JSONParser()))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.reason.contains("empty body"))
        #expect(try await fixture.service.send(Request(path: "/empty")).isEmpty)
    }

    @Test(arguments: TransportKind.allCases) func acceptableStatusCodesAreConfigurable(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/status/404", parser: JSONParser(contentKeyPath: "error"))
        request.acceptableStatusCodes = 200..<500
        #expect(try await fixture.service.send(request) == "status 404")
    }

    @Test(arguments: TransportKind.allCases) func serviceTimeoutAppliesByDefault(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(timeout: .seconds(1), transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.service.completion(of: Request(path: "/slow?ms=5000"))
        #expect(result.failure?.isTimeout == true, "got \(result)")
    }

    @Test(arguments: TransportKind.allCases) func nothingListening(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        await fixture.server.stopAndWait()
        let result = await fixture.service.completion(of: Request(path: "/json/small"))
        guard case .transport = result.failure else { Issue.record("got \(result)"); return }
    }

    @Test func pathWithoutBaseURLIsInvalid() async throws {
        let service = Service(configuration: ServiceConfiguration())
        await #expect(throws: NetworkError.self) { try await service.send(Request(path: "/x")) }
        let result = await service.completion(of: Request(path: "/x"))
        guard case .invalidURL(let text) = result.failure else { Issue.record("got \(result)"); return }
        #expect(text.contains("no base URL"))
    }

    @Test func errorDescriptionsReadWell() {
        #expect(NetworkError.cancelled.description == "cancelled")
        #expect(NetworkError.httpStatus(code: 404, body: Data("gone".utf8), headerFields: [:]).description == "HTTP 404 not found: gone")
        #expect(NetworkError.parse(ParseError(parser: "json", reason: "no key \"x\"", keyPath: "a/x")).description
            == "parse error: json parser: no key \"x\" (at key path a/x)")
        #expect(NetworkError.businessCode(code: "E1", message: nil).description == "business code \"E1\"")
    }

    /// Every URLError code the kit, its transports and its stub produce has words of its own.
    @Test(arguments: [
        URLError.Code.resourceUnavailable, .timedOut, .cancelled, .unknown, .badURL, .badServerResponse,
        .networkConnectionLost, .cannotFindHost, .cannotConnectToHost, .notConnectedToInternet,
        .httpTooManyRedirects, .cannotDecodeContentData, .cannotOpenFile, .fileDoesNotExist,
        .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
    ])
    func everyURLErrorTheKitReportsHasWords(code: URLError.Code) {
        let description = NetworkError.transport(TransportError(code)).description
        #expect(!description.contains("URLError"), "\(description)")
        #expect(description.hasPrefix("transport error: \(TransportError.words[code] ?? "?") (\(code.rawValue))"))
    }

    @Test func anUnavailableResourceSaysSo() {
        #expect(NetworkError.transport(TransportError(.resourceUnavailable)).description
            .hasPrefix("transport error: resource unavailable (-1008)"))
    }
}
