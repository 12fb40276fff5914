import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// HTTP Basic authentication against the fixture server's `/basic-auth/{user}/{password}`, on
/// both transports.
@Suite("Basic authentication")
struct BasicAuthenticationTests {
    @Test("per service: the credentials go with the first attempt", arguments: TransportKind.allCases)
    func firstAttempt(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.interceptors.append(BasicAuthentication(user: "ann", password: "s3cret é")) }
        let request = Request(path: "/basic-auth/ann/s3cret%20%C3%A9", parser: JSONParser())
        let answer = try await fixture.service.send(request)
        #expect(answer["user"] == "ann")
        #expect(request.attemptCount == 1)
    }

    @Test("a Basic challenge asks the provider again and retries once", arguments: TransportKind.allCases)
    func challenge(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let asked = Protected(0)
        let provider = BasicAuthentication {
            let n = asked.withLock { $0 += 1; return $0 }
            return BasicCredentials(user: "ann", password: n == 1 ? "stale" : "fresh")
        }
        let request = Request(path: "/basic-auth/ann/fresh", parser: JSONParser())
        request.interceptors = [provider]
        let answer = try await fixture.service.send(request)
        #expect(answer["user"] == "ann")
        #expect(request.attemptCount == 2)
        #expect(asked.snapshot == 2)

        // Wrong both times: the second 401 stands.
        let wrong = Request(path: "/basic-auth/ann/fresh", parser: JSONParser())
        wrong.interceptors = [BasicAuthentication(user: "ann", password: "nope")]
        let result = await fixture.service.completion(of: wrong)
        guard case .httpStatus(401, let body, let headers) = result.failure else { Issue.record("got \(result)"); return }
        #expect(headers[.wwwAuthenticate]?.hasPrefix("Basic") == true)
        #expect(String(decoding: body, as: UTF8.self).contains("unauthorized"))
        #expect(wrong.attemptCount == 2)
    }

    @Test("a 401 that offers only another scheme is not retried", arguments: TransportKind.allCases)
    func otherScheme(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/basic-auth/ann/pw?scheme=Bearer", parser: JSONParser())
        request.interceptors = [BasicAuthentication(user: "ann", password: "wrong")]
        let result = await fixture.service.completion(of: request)
        guard case .httpStatus(401, _, _) = result.failure else { Issue.record("got \(result)"); return }
        #expect(request.attemptCount == 1)
    }

    @Test("a request's own Authorization is kept", arguments: TransportKind.allCases)
    func ownHeaderKept(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.interceptors.append(BasicAuthentication(user: "ann", password: "pw")) }
        let request = Request(path: "/echo", headerFields: [.authorization: "Bearer mine"], parser: JSONParser())
        let answer = try await fixture.service.send(request)
        #expect(answer["headers"]?["authorization"]?.stringValue ?? answer["headers"]?["Authorization"]?.stringValue == "Bearer mine")
    }

    @Test("the password shows neither in cURL output nor in descriptions")
    func redacted() async throws {
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:9")))
        service.configure { $0.interceptors.append(BasicAuthentication(user: "ann", password: "s3cret")) }
        let command = try await service.curlCommand(for: Request(path: "/x"))
        let encoded = BasicCredentials(user: "ann", password: "s3cret").authorizationValue
        #expect(!command.contains(encoded.dropFirst(6)), "\(command)")
        #expect(command.contains("Authorization: <redacted>"), "\(command)")
        #expect(BasicCredentials(user: "ann", password: "s3cret").description == "ann:***")
        #expect(encoded == "Basic YW5uOnMzY3JldA==")
    }

    @Test("challenges that offer Basic, in any case and among others", arguments: [
        (#"Basic realm="x""#, true), (#"basic realm="x""#, true), (#"Bearer realm="x", Basic realm="y""#, true),
        (#"Bearer realm="x""#, false), (#"Digest realm="Basic""#, false), ("", false),
    ])
    func offersBasic(challenge: String, offers: Bool) {
        #expect(BasicAuthentication.offersBasic(challenge) == offers)
    }
}

/// `nk get -u user:password`, as curl's.
@Suite("nk and Basic authentication")
struct BasicAuthenticationCommandLineTests {
    @Test("-u sends the credentials; the wrong ones end with the 401; no colon is refused", arguments: ["nio", "urlsession"])
    func user(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let url = server.url("/basic-auth/ann/pw")
        let passed = try await CommandLine_.nk(["get", "--transport", transport, "-u", "ann:pw", url])
        #expect(passed.status == 0, "\(passed.errors)")
        #expect(passed.output.contains(#""user": "ann""#) || passed.output.contains(#""user":"ann""#), "\(passed.output)")
        let refused = try await CommandLine_.nk(["get", "--transport", transport, "-u", "ann:wrong", url])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("401"), "\(refused.errors)")
        let noColon = try await CommandLine_.nk(["get", "--transport", transport, "-u", "ann", url])
        #expect(noColon.status != 0)
        #expect(noColon.errors.contains("user:password"), "\(noColon.errors)")
    }
}
