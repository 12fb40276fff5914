import Foundation
import FixtureServer
import Testing

/// curl's TLS flags on `nk get` (NIO, the transport that can do them), and URLSession's refusal.
@Suite("nk and TLS trust")
struct TrustCommandLineTests {
    @Test("--cacert trusts the test CA; without it the system's roots refuse it with the check named")
    func caCert() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.server) { server in
                let trusted = try await CommandLine_.nk(["get", "--transport", "nio", "--cacert", fixture.certificates.ca.certificateFile.path,
                                                         server.helloURL()])
                #expect(trusted.status == 0, "\(trusted.errors)")
                let refused = try await CommandLine_.nk(["get", "--transport", "nio", server.helloURL()])
                #expect(refused.status == 1)
                #expect(refused.errors.contains("untrusted root"), "\(refused.errors)")
            }
        }
    }

    @Test("--pinnedpubkey: the server's key passes, another fails naming the key presented")
    func pins() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server) { server in
                let ca = ["--cacert", certificates.ca.certificateFile.path]
                let pinned = try await CommandLine_.nk(["get", "--transport", "nio"] + ca
                                                       + ["--pinnedpubkey", "sha256//\(certificates.otherCA.publicKeyPin);sha256//\(certificates.server.publicKeyPin)",
                                                          server.helloURL()])
                #expect(pinned.status == 0, "\(pinned.errors)")
                let wrong = try await CommandLine_.nk(["get", "--transport", "nio"] + ca
                                                      + ["--pinnedpubkey", "sha256//\(certificates.otherCA.publicKeyPin)", server.helloURL()])
                #expect(wrong.status == 1)
                #expect(wrong.errors.contains("pin mismatch") && wrong.errors.contains(certificates.server.publicKeyPin), "\(wrong.errors)")
                let malformed = try await CommandLine_.nk(["get", "--transport", "nio", "--pinnedpubkey", "md5//abc", server.helloURL()])
                #expect(malformed.status == 1)
                #expect(malformed.errors.contains("pin"), "\(malformed.errors)")
            }
        }
    }

    @Test("--cert and --key answer a server that asks for a client certificate")
    func clientCertificate() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            try await fixture.withServer(\.server, requiresClientCertificate: true) { server in
                let ca = ["--cacert", certificates.ca.certificateFile.path]
                let with = try await CommandLine_.nk(["get", "--transport", "nio"] + ca + ["--cert", certificates.client.certificateFile.path,
                                                                                           "--key", certificates.client.keyFile.path, server.helloURL()])
                #expect(with.status == 0, "\(with.errors)")
                let without = try await CommandLine_.nk(["get", "--transport", "nio"] + ca + [server.helloURL()])
                #expect(without.status == 1)
                #expect(without.errors.contains("client certificate"), "\(without.errors)")
            }
        }
    }

    @Test("-k reaches a server with an expired certificate, warning loudly; URLSession refuses it")
    func insecure() async throws {
        try await TrustFixture.run { fixture in
            try await fixture.withServer(\.expired) { server in
                let run = try await CommandLine_.nk(["get", "--transport", "nio", "-k", server.helloURL()])
                #expect(run.status == 0, "\(run.errors)")
                #expect(run.errors.contains("warning") && run.errors.contains("not checked"), "\(run.errors)")
                let urlSession = try await CommandLine_.nk(["get", "--transport", "urlsession", "-k", server.helloURL()])
                #expect(urlSession.status == 1)
                #expect(urlSession.errors.contains("URLSessionTransport cannot do"), "\(urlSession.errors)")
            }
        }
    }
}
