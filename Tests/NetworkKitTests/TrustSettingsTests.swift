import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
import Testing
@testable import NetworkKit
@testable import NetworkKitNIO

/// Trust settings without a server: pins and their curl syntax, PEM that does not parse,
/// URLSession's refusals, the rule that picks a connection's pins, and libcurl's TLS messages.
@Suite("TLS trust settings")
struct TrustSettingsTests {
    static let pinA = Data(repeating: 0xA1, count: 32).base64EncodedString()
    static let pinB = Data(repeating: 0xB2, count: 32).base64EncodedString()

    @Test("curl's --pinnedpubkey syntax parses into pins")
    func curlSyntax() throws {
        let pins = try PublicKeyPin.pins(curlSyntax: "sha256//\(Self.pinA);sha256//\(Self.pinB)")
        #expect(pins.map(\.base64) == [Self.pinA, Self.pinB])
        #expect(pins.first?.description == "sha256//\(Self.pinA)")
        #expect(try PublicKeyPin.pins(curlSyntax: " sha256//\(Self.pinA) ; sha256//\(Self.pinB) ").count == 2)
        #expect(try PublicKeyPin.pins(curlSyntax: "sha256//\(Self.pinA);").count == 1)
        #expect(try PublicKeyPin.pins(curlSyntax: "sha256//\(Self.pinA);;sha256//\(Self.pinB)").count == 2)
    }

    @Test("a malformed pin is a clear error", arguments: [
        ("", "no pin in it"),
        ("sha256//", "32 bytes, this is 0"),
        (" ; ", "no pin in it"),
        ("sha256//not base64!", "not base64"),
        ("sha256//AAAA", "32 bytes, this is 3"),
        ("md5//AAAA", "starts with sha256//"),
        ("/etc/ssl/key.pem", "starts with sha256//"),
    ])
    func malformedPins(text: String, words: String) {
        #expect {
            try PublicKeyPin.pins(curlSyntax: text)
        } throws: { error in
            guard let error = error as? TrustSettingsError, case .malformedPin = error else { return false }
            return error.description.contains(words) && error.description.contains("malformed public key pin")
        }
    }

    @Test("a pin of the wrong length or not base64 is refused")
    func malformedHash() {
        #expect(throws: TrustSettingsError.malformedPin("AAAA", reason: "a SHA-256 hash is 32 bytes, this is 3")) {
            try PublicKeyPin(sha256Base64: "AAAA")
        }
        #expect(throws: TrustSettingsError.self) { try PublicKeyPin(sha256Base64: "sha256//\(Self.pinA)") }
    }

    @Test("PEM that cannot be used fails the NIO transport when it is made, naming the file")
    func badPEM() async throws {
        try await TrustFixture.run { fixture in
            let certificates = fixture.certificates
            let garbage = certificates.directory.appendingPathComponent("garbage.pem")
            try Data("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n".utf8).write(to: garbage)
            let missing = certificates.directory.appendingPathComponent("missing.pem")
            let cases: [(TrustSettings, String)] = [
                (TrustSettings(roots: .custom([.file(garbage)])), garbage.path),
                (TrustSettings(roots: .systemAnd([.file(missing)])), missing.path),
                (TrustSettings(roots: .custom([.data(Data("hello".utf8))])), "PEM data (5 bytes)"),
                (TrustSettings(roots: .custom([.file(certificates.ca.keyFile)])), certificates.ca.keyFile.path),
                (TrustSettings(clientIdentity: ClientIdentity(certificateChain: .file(certificates.client.certificateFile),
                                                              privateKey: .file(certificates.client.certificateFile))),
                 certificates.client.certificateFile.path),
                // A key that is not the certificate's: refused by NIOSSL when the transport is made.
                (TrustSettings(clientIdentity: ClientIdentity(certificateChain: .file(certificates.client.certificateFile),
                                                              privateKey: .file(certificates.server.keyFile))),
                 "NIOSSL refuses them"),
                (TrustSettings(hosts: ["files.example": TrustSettings(roots: .custom([.file(garbage)]))]), garbage.path),
            ]
            for (trust, words) in cases {
                #expect {
                    try NIOTransport(connection: ConnectionSettings(trust: trust))
                } throws: { error in
                    guard case .connection(.invalidSetting(let setting, let reason))? = error as? NetworkError else { return false }
                    return (setting + ": " + reason).contains(words)
                }
            }
        }
    }

    @Test("URLSession refuses each trust setting it cannot honour, naming it", arguments: 0..<8)
    func urlSessionRefuses(index: Int) throws {
        let pem = PEMSource.data(Data("x".utf8))
        let pin = try PublicKeyPin(sha256Base64: Self.pinA)
        let cases: [(TrustSettings, String)] = [
            (TrustSettings(roots: .custom([pem])), "custom trust roots"),
            (TrustSettings(roots: .systemAnd([pem])), "custom trust roots"),
            (TrustSettings(pinnedKeys: [pin]), "public key pinning"),
            (TrustSettings(clientIdentity: ClientIdentity(certificateChain: pem, privateKey: pem)), "client certificates"),
            (TrustSettings(minimumTLSVersion: .v1_3), "a minimum TLS version (TLS 1.3)"),
            (TrustSettings(insecureHosts: ["dev.example"]), "turning certificate validation off (insecureHosts: dev.example)"),
            (TrustSettings(hosts: ["api.example": TrustSettings(pinnedKeys: [pin])]), "public key pinning"),
            (TrustSettings(hosts: ["api.example": TrustSettings(minimumTLSVersion: .v1_2)]), "for the host api.example"),
        ]
        let (trust, words) = cases[index]
        #expect {
            try URLSessionTransport(configuration: .default, connection: ConnectionSettings(trust: trust))
        } throws: { error in
            guard let networkError = error as? NetworkError, let unsupported = networkError.unsupported else { return false }
            return unsupported.transport == "URLSessionTransport" && unsupported.feature.contains(words)
                && networkError.description.contains("URLSessionTransport cannot do")
        }
    }

    @Test("URLSession takes the system's trust, for the service and for hosts")
    func urlSessionTakesTheDefaults() throws {
        _ = try URLSessionTransport(configuration: .default,
                                    connection: ConnectionSettings(trust: TrustSettings(hosts: ["a.example": TrustSettings()])))
    }

    @Test("a host's entry replaces the service's settings; hosts compare without case or brackets")
    func hostEntries() throws {
        let pin = try PublicKeyPin(sha256Base64: Self.pinA)
        let trust = TrustSettings(pinnedKeys: [pin], insecureHosts: ["Dev.Example", "::1"],
                                  hosts: ["API.example": TrustSettings(minimumTLSVersion: .v1_3), "dev.example": TrustSettings()])
        #expect(trust.settings(forHost: "api.EXAMPLE").minimumTLSVersion == .v1_3)
        #expect(trust.settings(forHost: "api.example").pinnedKeys.isEmpty)
        #expect(trust.settings(forHost: "other.example").pinnedKeys == [pin])
        #expect(trust.settings(forHost: "other.example").hosts.isEmpty)
        #expect(trust.isInsecure(host: "[::1]"))
        #expect(!trust.isInsecure(host: "dev.example"))  // its entry does not say it is
        #expect(!trust.isInsecure(host: "api.example"))
    }

    @Test("a certificate's names cover hosts as hostname checks do")
    func certificateNames() {
        let names = NIOCertificateNames(dnsNames: ["*.example.com", "localhost"], ipAddresses: [[127, 0, 0, 1]])
        #expect(names.covers("a.example.com"))
        #expect(!names.covers("example.com"))
        #expect(!names.covers("a.b.example.com"))
        #expect(names.covers("LOCALHOST"))
        #expect(names.covers("127.0.0.1"))
        #expect(!names.covers("127.0.0.2"))
        #expect(!names.covers("::1"))
        #expect(names.coversAnyName(besides: ["localhost", "127.0.0.1"]))  // the wildcard
        let exact = NIOCertificateNames(dnsNames: ["localhost"], ipAddresses: [[127, 0, 0, 1]])
        #expect(!exact.coversAnyName(besides: ["localhost", "127.0.0.1"]))
        #expect(exact.coversAnyName(besides: ["localhost"]))
    }

    @Test("a connection must satisfy the pins of every host its certificate names")
    func pinRule() throws {
        let a = try PublicKeyPin(sha256Base64: Self.pinA), b = try PublicKeyPin(sha256Base64: Self.pinB)
        let trust = TrustSettings(pinnedKeys: [a], hosts: ["pinned.example": TrustSettings(pinnedKeys: [b]),
                                                           "free.example": TrustSettings()])
        let check = NIOPinCheck(trust)
        #expect(check.pinsAnything)
        func sets(_ dns: [String]) -> [Set<Data>] { check.pinSets(for: NIOCertificateNames(dnsNames: dns, ipAddresses: [])) }
        #expect(sets(["pinned.example"]) == [[b.sha256]])
        #expect(sets(["free.example"]) == [])
        #expect(sets(["api.example"]) == [[a.sha256]])
        #expect(Set(sets(["pinned.example", "api.example"])) == [[a.sha256], [b.sha256]])
        #expect(Set(sets(["*.example"])) == [[a.sha256], [b.sha256]])  // covers pinned.example and others
        #expect(Set(sets(["*.other.example"])) == [[a.sha256]])
        #expect(Set(sets([])) == [[a.sha256], [b.sha256]])  // names that cannot be read: every set
        #expect(!NIOPinCheck(TrustSettings(hosts: ["x.example": TrustSettings()])).pinsAnything)
    }

    @Test("libcurl's TLS messages as the checks they name", arguments: [
        ("SSL certificate problem: self-signed certificate", TLSCheck.untrustedRoot),
        ("SSL certificate problem: unable to get local issuer certificate", .untrustedRoot),
        ("SSL certificate problem: certificate has expired", .expired),
        ("SSL certificate problem: certificate is not yet valid", .notYetValid),
        ("SSL: no alternative certificate subject name matches target host name 'x.test'", .nameMismatch),
        ("OpenSSL SSL_read: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0", .clientCertificateRejected),
        ("OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate", .clientCertificateRejected),
        ("OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure",
         .handshake("libcurl: OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure")),
    ])
    func curlMessages(message: String, check: TLSCheck) throws {
        let url = try #require(URL(string: "https://api.example:8443/x"))
        let error = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: url])
        let mapped = CurlErrors.failure(for: error)
        guard case .connection(.tls(let host, let found)) = mapped else {
            Issue.record("got \(mapped)")
            return
        }
        #expect(host == "api.example")
        #expect(found == check)
        // A failure that is not TLS passes as before.
        let refused = URLError(.cannotConnectToHost, detail: "Failed to connect")
        guard case .transport(let failure) = CurlErrors.failure(for: refused) else {
            Issue.record("a refused connection is not a failed transfer")
            return
        }
        #expect(failure.code == .cannotConnectToHost)
    }
}
