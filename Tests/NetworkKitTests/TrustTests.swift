import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
import Logging
import Testing
@testable import NetworkKit
import NetworkKitNIO

/// TLS trust over the wire: HTTPS servers on 127.0.0.1 presenting certificates made for the test
/// (`TestCertificates`), and transports made with `TrustSettings`. Each failure names the check
/// the server failed (`NetworkError.connection(.tls(host:check:))`).
@Suite("TLS trust")
struct TrustTests {
    @Test("the test CA as custom roots, from a file or in memory, alone or beside the system's", arguments: [0, 1, 2])
    func customRootsTrustTheServer(variant: Int) async throws {
        try await TrustFixture.run { fixture in
            let ca = fixture.certificates.ca
            let roots: [TrustRoots] = [.custom([.file(ca.certificateFile)]), .custom([.data(Data(ca.certificatePEM.utf8))]),
                                       .systemAnd([.file(ca.certificateFile)])]
            try await fixture.withServer(\.server) { server in
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: TrustSettings(roots: roots[variant]))
                #expect(result.isHello, "\(result)")
                let byName = try await TransportKind.nio.fetch(server.helloURL(host: "localhost"),
                                                                trust: TrustSettings(roots: roots[variant]))
                #expect(byName.isHello, "\(byName)")
            }
        }
    }

    @Test("the system's roots do not trust the test CA", arguments: TransportKind.allCases)
    func systemRootsRefuseTheTestCA(transport: TransportKind) async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server) { server in
                let result = try await transport.fetch(server.helloURL(), trust: TrustSettings())
                #expect(result.tlsFailure?.host == "127.0.0.1", "\(result)")
                #expect(result.tlsFailure?.check == .untrustedRoot, "\(result)")
                #expect(result.failure?.description.contains("untrusted root") == true)
            }
        }
    }

    @Test("an https URL to a plain HTTP port is a handshake failure that says so", arguments: TransportKind.allCases)
    func plainPort(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let result = try await transport.fetch("https://127.0.0.1:\(server.port)/json/small", trust: TrustSettings())
        guard case .handshake(let words)? = result.tlsFailure?.check else {
            Issue.record("expected a handshake failure, got \(result)")
            return
        }
        #expect(words.contains("does not speak TLS"), "\(words)")
    }

    @Test("roots of another CA do not trust the server")
    func anotherCAIsNotTrusted() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server) { server in
                let trust = TrustSettings(roots: .custom([.file(fixture.certificates.otherCA.certificateFile)]))
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: trust)
                #expect(result.tlsFailure?.check == .untrustedRoot, "\(result)")
            }
        }
    }

    /// A certificate that fails one check, and the check.
    enum FaultyCertificate: String, CaseIterable, Sendable {
        case wrongName, expired, notYetValid

        var identity: KeyPath<TestCertificates, TestIdentity> {
            switch self {
            case .wrongName: \.wrongName
            case .expired: \.expired
            case .notYetValid: \.notYetValid
            }
        }

        var check: TLSCheck {
            switch self {
            case .wrongName: .nameMismatch
            case .expired: .expired
            case .notYetValid: .notYetValid
            }
        }
    }

    @Test("a certificate for another name, an expired one and one not valid yet each name their check",
          arguments: FaultyCertificate.allCases)
    func certificateChecks(certificate: FaultyCertificate) async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(certificate.identity) { server in
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: fixture.testCA)
                #expect(result.tlsFailure?.host == "127.0.0.1", "\(result)")
                #expect(result.tlsFailure?.check == certificate.check, "\(result)")
            }
        }
    }

    @Test("a pinned key, alone or among several in curl's syntax, lets the request through")
    func pinnedKeyMatches() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server) { server in
                var trust = fixture.testCA
                trust.pinnedKeys = [try PublicKeyPin(sha256Base64: certificates.server.publicKeyPin)]
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
                trust.pinnedKeys = try PublicKeyPin.pins(curlSyntax: "sha256//\(certificates.otherCA.publicKeyPin); "
                    + "sha256//\(certificates.server.publicKeyPin);sha256//\(certificates.client.publicKeyPin)")
                #expect(trust.pinnedKeys.count == 3)
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
            }
        }
    }

    @Test("keys that are not the server's fail at once, naming the key it presented")
    func wrongPinsFail() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server) { server in
                var trust = fixture.testCA
                trust.pinnedKeys = try PublicKeyPin.pins(curlSyntax:
                    "sha256//\(certificates.otherCA.publicKeyPin);sha256//\(certificates.client.publicKeyPin)")
                let transport = try NIOTransport(connection: ConnectionSettings(trust: trust))
                let service = Service(configuration: ServiceConfiguration(timeout: .seconds(30)),
                                      transport: transport)
                // Several at once: each waits for a connection, and each connection fails its check.
                // Each fails with the pin's words, not the 30 s timeout: the check fails the
                // connection at once.
                let results = await withTaskGroup(of: Result<Data, NetworkError>.self) { group in
                    for _ in 0..<4 { group.addTask { await service.completion(of: Request(url: server.helloURL())) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                for result in results {
                    #expect(result.tlsFailure?.check == .pinMismatch(presented: certificates.server.publicKeyPin), "\(result)")
                    #expect(result.failure?.description.contains("sha256//\(certificates.server.publicKeyPin)") == true)
                }
            }
        }
    }

    @Test("a server that requires a client certificate refuses none or a stray one, and takes the right one")
    func clientCertificates() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server, requiresClientCertificate: true) { server in
                let without = try await TransportKind.nio.fetch(server.helloURL(), trust: fixture.testCA)
                #expect(without.tlsFailure?.check == .clientCertificateRejected, "\(without)")

                var stray = fixture.testCA
                stray.clientIdentity = ClientIdentity(certificateChain: .data(Data(certificates.strayClient.certificatePEM.utf8)),
                                                      privateKey: .data(Data(certificates.strayClient.keyPEM.utf8)))
                let refused = try await TransportKind.nio.fetch(server.helloURL(), trust: stray)
                #expect(refused.tlsFailure?.check == .clientCertificateRejected, "\(refused)")

                var trust = fixture.testCA
                trust.clientIdentity = fixture.clientIdentity
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: trust)
                #expect(result.isHello, "\(result)")
            }
        }
    }

    @Test("on TLS 1.2 a missing client certificate is a handshake failure that says so, a stray one is refused")
    func clientCertificatesOnTLS12() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server, requiresClientCertificate: true, upToTLS12: true) { server in
                let without = try await TransportKind.nio.fetch(server.helloURL(), trust: fixture.testCA)
                guard case .handshake(let words)? = without.tlsFailure?.check else {
                    Issue.record("expected a handshake failure, got \(without)")
                    return
                }
                #expect(words.contains("client certificate"), "\(words)")

                var stray = fixture.testCA
                stray.clientIdentity = ClientIdentity(certificateChain: .file(certificates.strayClient.certificateFile),
                                                      privateKey: .file(certificates.strayClient.keyFile))
                let refused = try await TransportKind.nio.fetch(server.helloURL(), trust: stray)
                #expect(refused.tlsFailure?.check == .clientCertificateRejected, "\(refused)")

                var trust = fixture.testCA
                trust.clientIdentity = fixture.clientIdentity
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
            }
        }
    }

    @Test("an insecure host is reached whatever its certificate, with a warning in the log")
    func insecureHost() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.expired) { server in
                let lines = Protected<[(Logger.Level, String)]>([])
                let trust = TrustSettings(insecureHosts: ["127.0.0.1"], logger: capturingLogger(lines))
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: trust)
                #expect(result.isHello, "\(result)")
                let warnings = lines.snapshot.filter { $0.0 == .warning }.map(\.1)
                #expect(warnings.count >= 2, "\(warnings)")  // when the transport is made, and for the request
                #expect(warnings.allSatisfy { $0.contains("validation is OFF for 127.0.0.1") }, "\(warnings)")

                // The same server by another name is checked (its certificate is expired and from
                // an authority the system does not trust: the dates are reported).
                let other = try await TransportKind.nio.fetch(server.helloURL(host: "localhost"), trust: trust)
                #expect(other.tlsFailure?.check == .expired, "\(other)")
            }
        }
    }

    @Test("a host insecure for another host only is still checked")
    func insecureForAnotherHost() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server) { server in
                let trust = TrustSettings(insecureHosts: ["localhost", "dev.example"])
                let result = try await TransportKind.nio.fetch(server.helloURL(), trust: trust)
                #expect(result.tlsFailure?.check == .untrustedRoot, "\(result)")
            }
        }
    }

    @Test("a host's entry replaces the service's trust for that host only")
    func perHostRoots() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server) { server in
                let trust = TrustSettings(hosts: ["127.0.0.1": fixture.testCA])
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
                let byName = try await TransportKind.nio.fetch(server.helloURL(host: "localhost"), trust: trust)
                #expect(byName.tlsFailure?.check == .untrustedRoot, "\(byName)")

                // The other way round: the service trusts the test CA, the host's entry does not.
                var reversed = fixture.testCA
                reversed.hosts["LOCALHOST"] = TrustSettings()
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: reversed).isHello)
                let refused = try await TransportKind.nio.fetch(server.helloURL(host: "localhost"), trust: reversed)
                #expect(refused.tlsFailure?.check == .untrustedRoot, "\(refused)")
            }
        }
    }

    @Test("a host's pins apply to the certificates that name it; the service's to those naming other hosts")
    func perHostPins() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server) { server in
                let serverPin = try PublicKeyPin(sha256Base64: certificates.server.publicKeyPin)
                let otherPin = try PublicKeyPin(sha256Base64: certificates.otherCA.publicKeyPin)
                // Every name of the certificate has an entry pinning its key: the service's pin
                // (another key) does not apply.
                var trust = fixture.testCA
                trust.pinnedKeys = [otherPin]
                var entry = fixture.testCA
                entry.pinnedKeys = [serverPin]
                trust.hosts = ["127.0.0.1": entry, "localhost": entry]
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
                #expect(try await TransportKind.nio.fetch(server.helloURL(host: "localhost"), trust: trust).isHello)

                // One name's entry pins another key: the certificate names that host, so it fails
                // by either name.
                var strict = fixture.testCA
                strict.pinnedKeys = [serverPin]
                entry.pinnedKeys = [otherPin]
                strict.hosts = ["127.0.0.1": entry]
                for host in ["127.0.0.1", "localhost"] {
                    let result = try await TransportKind.nio.fetch(server.helloURL(host: host), trust: strict)
                    #expect(result.tlsFailure?.check == .pinMismatch(presented: certificates.server.publicKeyPin), "\(result)")
                }
            }
        }
    }

    @Test("a minimum TLS version refuses an older server, for the service or for a host")
    func minimumTLSVersion() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server, upToTLS12: true) { server in
                var trust = fixture.testCA
                trust.minimumTLSVersion = .v1_2
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: trust).isHello)
                trust.minimumTLSVersion = .v1_3
                let refused = try await TransportKind.nio.fetch(server.helloURL(), trust: trust)
                guard case .handshake(let words)? = refused.tlsFailure?.check else {
                    Issue.record("expected a handshake failure, got \(refused)")
                    return
                }
                #expect(words == "NIO: TLSV1_ALERT_PROTOCOL_VERSION" || words.contains("UNSUPPORTED_PROTOCOL"), "\(words)")

                var perHost = fixture.testCA
                perHost.hosts["localhost"] = trust
                #expect(try await TransportKind.nio.fetch(server.helloURL(), trust: perHost).isHello)
                let byName = try await TransportKind.nio.fetch(server.helloURL(host: "localhost"), trust: perHost)
                #expect(byName.tlsFailure != nil, "\(byName)")
            }
        }
    }
}
