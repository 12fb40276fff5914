import Crypto
import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// Keys and values per environment, read by the signer and the interceptors from the
/// environment active when the request started, on both transports.
@Suite("Environment values")
struct EnvironmentValuesTests {
    static let productionKey = SymmetricKey(data: Data("production key".utf8))
    static let stagingKey = SymmetricKey(data: Data("staging key".utf8))

    /// Signs with the HMAC key of the request's environment (its `signingKey` value).
    struct EnvironmentSigner: RequestSigning {
        func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
            throw NetworkError.invalidRequest("signed without an environment")
        }

        func sign(_ request: OutgoingRequest, environment: ServiceEnvironment) throws -> OutgoingRequest {
            guard let secret = environment["signingKey"] else { throw NetworkError.invalidRequest("no signing key in \(environment.name)") }
            return try HMACSigner(key: SymmetricKey(data: Data(secret.utf8))).sign(request)
        }
    }

    /// Adds the environment's client ID, and on the first attempt of a request to `/flaky`
    /// switches the service to staging (the request must keep production's values).
    struct ClientID: RequestInterceptor {
        let switchTo: @Sendable () -> Void
        func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
            var adapted = request
            adapted.head.headerFields[HTTPField.Name("X-Client-ID")!] = context.environment["clientID"]
            if context.attempt == 1, request.url?.path.contains("/flaky/") == true { switchTo() }
            return adapted
        }
    }

    /// The client IDs sent, per attempt.
    final class SentClientIDs: EventMonitor {
        let sent = Recorder<String>()
        func request(_ id: RequestID, didSend request: OutgoingRequest, attempt: Int) {
            sent.append(request.head.headerFields[HTTPField.Name("X-Client-ID")!] ?? "none")
        }
    }

    @Test("the signer and interceptors use the environment the request started in", arguments: TransportKind.allCases)
    func valuesFollowTheEnvironment(transport: TransportKind) async throws {
        let server = try await FixtureServer.start { content, signature in
            HMACSigner.hex(HMAC<SHA256>.authenticationCode(for: content, using: Self.stagingKey)) == signature
        }
        defer { server.stop() }
        let monitor = SentClientIDs()
        let holder = Protected<Service?>(nil)
        var configuration = ServiceConfiguration(environments: [
            ServiceEnvironment(name: "production", baseURL: server.baseURL,
                               values: ["clientID": "web", "signingKey": "production key"]),
            ServiceEnvironment(name: "staging", baseURL: server.baseURL,
                               values: ["clientID": "web-staging", "signingKey": "staging key"]),
        ])
        configuration.signer = EnvironmentSigner()
        configuration.interceptors = [ClientID { holder.snapshot?.useEnvironment(named: "staging") }]
        configuration.eventMonitors = [monitor]
        let service = transport.service(configuration)
        holder.withLock { $0 = service }

        // Production's key does not verify.
        let refused = await service.result(of: Request(path: "/signed", parser: JSONParser()))
        guard case .httpStatus(401, _, _) = refused.failure else { Issue.record("got \(refused)"); return }

        // Switched during its first attempt, the request retries with production's values.
        let flaky = Request(path: "/flaky/env-\(UUID().uuidString)?failures=1&status=503", parser: JSONParser())
        flaky.interceptors = [RetryPolicy(maxRetries: 1, backoff: Backoff(initial: .milliseconds(1)))]
        _ = try await service.send(flaky)
        #expect(flaky.attemptCount == 2)
        #expect(service.configuration.environmentName == "staging")

        // The next request starts in staging: its key verifies.
        let verified = try await service.send(Request(path: "/signed", parser: JSONParser()))
        #expect(verified["verified"] == true)
        #expect(monitor.sent.all == ["web", "web", "web", "web-staging"])
    }

    @Test("values are read and written by key")
    func subscripting() {
        var environment = ServiceEnvironment(name: "local", baseURL: nil, values: ["clientID": "dev"])
        #expect(environment["clientID"] == "dev")
        environment["clientID"] = nil
        environment["region"] = "eu"
        #expect(environment.values == ["region": "eu"])
    }
}
