import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// A request leaving out the service's common headers, common parameters, signer or envelope,
/// each on its own, against the fixture server's `/echo`, on both transports.
@Suite("Skipped service defaults")
struct ServiceDefaultsTests {
    /// A signer that marks what it signed.
    struct MarkingSigner: RequestSigning {
        func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
            var request = request
            request.head.headerFields[HTTPField.Name("X-Signed")!] = "yes"
            return request
        }
    }

    /// What `/echo` saw: the common header, the query, and the signature header.
    static func seen(_ answer: JSON) -> (common: String?, query: String, signed: String?) {
        let headers = answer["headers"]?.objectValue ?? [:]
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value.stringValue
        }
        return (header("X-Common"), answer["query"]?.stringValue ?? "", header("X-Signed"))
    }

    @Test("each step left out on its own; the others still apply", arguments: TransportKind.allCases, [
        ServiceDefaults(), .commonHeaderFields, .commonParameters, .signer, [.commonHeaderFields, .commonParameters, .signer],
    ])
    func skipped(transport: TransportKind, skipping: ServiceDefaults) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure {
            $0.commonHeaderFields = { [HTTPField.Name("X-Common")!: "1"] }
            $0.commonParameters = { ["platform": "linux"] }
            $0.signer = MarkingSigner()
        }
        let request = Request(path: "/echo", parameters: ["q": "a"], parser: JSONParser())
        request.skippedServiceDefaults = skipping
        let seen = Self.seen(try await fixture.service.send(request))
        #expect(seen.common == (skipping.contains(.commonHeaderFields) ? nil : "1"))
        #expect(seen.query.contains("platform=linux") == !skipping.contains(.commonParameters), "\(seen.query)")
        #expect(seen.query.contains("q=a"))
        #expect(seen.signed == (skipping.contains(.signer) ? nil : "yes"))
    }

    @Test("a request that leaves out the envelope reads the body as it is", arguments: TransportKind.allCases)
    func envelope(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data") }
        let enveloped = try await fixture.service.send(Request(path: "/protected?style=code", parser: JSONParser()).authorized())
        #expect(enveloped["user"] == "ann")
        let raw = Request(path: "/protected?style=code", parser: JSONParser()).authorized()
        raw.skippedServiceDefaults = .envelope
        let whole = try await fixture.service.send(raw)
        #expect(whole["code"] == 0)
        #expect(whole["data"]?["user"] == "ann")
    }
}

private extension Request<JSON> {
    /// With the token `/protected` accepts.
    func authorized() -> Self {
        interceptors = [StaticHeader(name: "Authorization", value: "Bearer \(FixtureServer.freshToken)")]
        return self
    }
}

/// Sets one header on every attempt.
private struct StaticHeader: RequestInterceptor {
    let name: String
    let value: String

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[HTTPField.Name(name)!] = value
        return request
    }
}
