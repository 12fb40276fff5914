import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

@Suite("Bad input gets a typed error")
struct ErrorTests {
    @Test(arguments: TransportKind.allCases) func malformedJSON(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.land(Request(path: "/json/malformed", parser: JSONParser()))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.parser == "json")
        #expect(error.reason.contains("malformed JSON"))
    }

    @Test(arguments: TransportKind.allCases) func wrongContentType(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let lenient = await fixture.land(Request(path: "/html", parser: JSONParser()))
        guard case .parse(let error) = lenient.failure else { Issue.record("got \(lenient)"); return }
        #expect(error.reason.contains("text/html"))
        let strict = JSONParser(acceptableContentTypes: ["application/json", "+json"])
        let refused = await fixture.land(Request(path: "/html", parser: strict))
        guard case .parse(let strictError) = refused.failure else { Issue.record("got \(refused)"); return }
        #expect(strictError.reason.contains("Content-Type \"text/html\" is not one of"))
        #expect(try await fixture.service.send(Request(path: "/json/small", parser: strict))["code"] == 0)
    }

    @Test(arguments: TransportKind.allCases) func emptyBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.land(Request(path: "/empty", parser: JSONParser()))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.reason.contains("empty body"))
        #expect(try await fixture.service.send(Request(path: "/empty")).isEmpty)
    }

    @Test(arguments: TransportKind.allCases, [404, 500, 503])
    func httpStatusCarriesCodeBodyAndHeaders(transport: TransportKind, code: Int) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.land(Request(path: "/status/\(code)", parser: JSONParser()))
        guard case .httpStatus(let status, let body, let headers) = result.failure else { Issue.record("got \(result)"); return }
        #expect(status == code)
        #expect(String(decoding: body, as: UTF8.self).contains("status \(code)"))
        #expect(Response(url: nil, statusCode: status, headers: headers, data: body).mimeType == "application/json")
        #expect(result.failure?.header("CONTENT-type")?.hasPrefix("application/json") == true)
        #expect(result.failure?.description.hasPrefix("HTTP \(code)") == true)
    }

    @Test(arguments: TransportKind.allCases) func acceptableStatusCodesAreConfigurable(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/status/404", parser: JSONParser(contentKeyPath: "error"))
        request.acceptableStatusCodes = 200..<500
        #expect(try await fixture.service.send(request) == "status 404")
    }

    /// Also the hostile server whose body is shorter than its Content-Length: 1,000 of the
    /// 100,000 bytes announced, then the connection closes.
    @Test(arguments: TransportKind.allCases) func connectionDroppedMidResponse(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.land(Request(path: "/drop", parser: JSONParser()))
        guard case .transport(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.code == .networkConnectionLost, "\(error)")
        #expect(result.failure?.description.contains(ServerFault.closedEarly.words) == true, "\(result)")
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test(arguments: TransportKind.allCases) func serverSlowerThanTheTimeout(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        // The server answers after 20 s: a 1 s timeout that fires within 10 s (generous on a
        // loaded machine) fired long before the answer.
        let request = Request(path: "/slow?ms=20000")
        request.timeout = 1
        let started = ContinuousClock.now
        let result = await fixture.land(request)
        #expect(result.failure?.isTimeout == true, "got \(result)")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test(arguments: TransportKind.allCases) func serviceTimeoutAppliesByDefault(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(timeout: 1, transport: transport)
        defer { fixture.server.stop() }
        let result = await fixture.land(Request(path: "/slow?ms=5000"))
        #expect(result.failure?.isTimeout == true, "got \(result)")
    }

    @Test(arguments: TransportKind.allCases) func nothingListening(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        await fixture.server.stopAndWait()
        let result = await fixture.land(Request(path: "/json/small"))
        guard case .transport = result.failure else { Issue.record("got \(result)"); return }
    }

    @Test func pathWithoutBaseURLIsInvalid() async throws {
        let service = Service(configuration: ServiceConfiguration(callbackQueue: DispatchQueue(label: "t")))
        await #expect(throws: NetworkError.self) { try await service.send(Request(path: "/x")) }
        let result = await withCheckedContinuation { continuation in
            let request = Request(path: "/x")
            request.addCompletionHandler { _, result in continuation.resume(returning: result) }
            service.start(request)
        }
        guard case .invalidURL(let text) = result.failure else { Issue.record("got \(result)"); return }
        #expect(text.contains("no base URL"))
    }

    @Test func errorDescriptionsReadWell() {
        #expect(NetworkError.cancelled.description == "cancelled")
        #expect(NetworkError.httpStatus(code: 404, body: Data("gone".utf8), headers: [:]).description == "HTTP 404 not found: gone")
        #expect(NetworkError.parse(ParseError(parser: "json", reason: "no key \"x\"", keyPath: "a/x")).description
            == "parse error: json parser: no key \"x\" (at key path a/x)")
        #expect(NetworkError.businessCode(code: "E1", message: nil).description == "business code \"E1\"")
    }
}
