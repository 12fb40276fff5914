import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
import Logging
@testable import NetworkKit
import NetworkKitNIO

/// The trust tests' certificates and servers, made for one test and torn down after it.
struct TrustFixture {
    let certificates: TestCertificates

    /// Runs `body` with fresh certificates, then deletes their files.
    static func run<T>(_ body: (TrustFixture) async throws -> T) async throws -> T {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        return try await body(TrustFixture(certificates: certificates))
    }

    /// Runs `body` with a server presenting `identity` (see `TLSFixtureServer.start`), stopped after it.
    func withServer<T>(_ identity: KeyPath<TestCertificates, TestIdentity>, requiresClientCertificate: Bool = false,
                       upToTLS12: Bool = false,
                       _ body: (TLSFixtureServer) async throws -> T) async throws -> T {
        let server = try await TLSFixtureServer.start(presenting: certificates[keyPath: identity],
                                                      clientCA: requiresClientCertificate ? certificates.clientCA : nil,
                                                      upToTLS12: upToTLS12)
        defer { server.stop() }
        return try await body(server)
    }

    /// Trust in the test CA only, from its file.
    var testCA: TrustSettings { TrustSettings(roots: .custom([.file(certificates.ca.certificateFile)])) }

    /// The client identity the mutual-TLS server accepts.
    var clientIdentity: ClientIdentity {
        ClientIdentity(certificateChain: .file(certificates.client.certificateFile),
                       privateKey: .file(certificates.client.keyFile))
    }
}

extension TransportKind {
    /// This transport made with `trust`.
    func transport(trust: TrustSettings) throws(NetworkError) -> any Transport {
        switch self {
        case .urlSession: try URLSessionTransport(configuration: .default, connection: ConnectionSettings(trust: trust))
        case .nio: try NIOTransport(connection: ConnectionSettings(trust: trust))
        }
    }

    /// GET `url` through this transport made with `trust`. Each caller waits for the handshake's
    /// verdict or the answer, so the idle timeout is only a backstop: on two loaded cores a
    /// handshake with the in-process server has gone 15 s without a byte.
    func fetch(_ url: String, trust: TrustSettings) async throws -> Result<Data, NetworkError> {
        let configuration = ServiceConfiguration(timeout: .seconds(120))
        let service = Service(configuration: configuration, transport: try transport(trust: trust))
        return await service.completion(of: Request(url: url))
    }
}

extension Result where Failure == NetworkError {
    /// The host and check of a `.connection(.tls)` failure.
    var tlsFailure: (host: String, check: TLSCheck)? {
        guard case .failure(.connection(.tls(let host, let check))) = self else { return nil }
        return (host, check)
    }

}

extension Result where Success == Data, Failure == NetworkError {
    /// True for the fixture's `{"ok":true}` answer.
    var isHello: Bool {
        success.map { String(decoding: $0, as: UTF8.self) } == #"{"ok":true}"#
    }
}

extension NetworkError {
    /// The feature and transport of an `.unsupported` connection failure.
    var unsupported: (feature: String, transport: String)? {
        guard case .connection(.unsupported(let feature, let transport)) = self else { return nil }
        return (feature, transport)
    }
}

/// A logger whose lines `lines` keeps.
func capturingLogger(_ lines: Protected<[(Logger.Level, String)]>) -> Logger {
    Logger(label: "tests.trust") { _ in CapturingLogHandler(lines: lines) }
}
