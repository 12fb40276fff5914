import Testing
@testable import NetworkKit
@testable import NetworkKitNIO

/// BoringSSL's failed handshakes, as the texts of their errors, and the checks they are (the TLS
/// tests see a real handshake fail on each transport).
@Suite("BoringSSL's failures")
struct NIOTLSFailuresTests {
    /// The text of a failed handshake whose reason is `reason`, as NIOSSL prints it.
    static func handshake(_ reason: String) -> String {
        "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:"
            + "OPENSSL_internal:\(reason) at /src/ssl/handshake.cc:393]))"
    }

    @Test(arguments: [
        ("CERTIFICATE_VERIFY_FAILED", TLSCheck.untrustedRoot),
        ("SSLV3_ALERT_BAD_CERTIFICATE", .clientCertificateRejected),
        ("TLSV1_ALERT_CERTIFICATE_REQUIRED", .clientCertificateRejected),
        ("TLSV1_ALERT_UNKNOWN_CA", .clientCertificateRejected),
        ("WRONG_VERSION_NUMBER", .handshake("the server does not speak TLS on this port (NIO: WRONG_VERSION_NUMBER)")),
        ("SSLV3_ALERT_HANDSHAKE_FAILURE", .handshake("the server ended the handshake (NIO: SSLV3_ALERT_HANDSHAKE_FAILURE): "
                                                      + "no cipher or version in common, or it wants a client certificate")),
        ("TLSV1_ALERT_PROTOCOL_VERSION", .handshake("NIO: TLSV1_ALERT_PROTOCOL_VERSION")),
    ])
    func reasonNamesTheCheck(reason: String, check: TLSCheck) {
        #expect(NIOTLSFailures.check(forBoringSSLText: Self.handshake(reason)) == check)
    }

    /// A text without a reason name is kept whole, so nothing is lost.
    @Test func aTextWithoutReasonIsKept() {
        #expect(NIOTLSFailures.check(forBoringSSLText: "handshakeFailed(unknown)") == .handshake("NIO: handshakeFailed(unknown)"))
    }

    /// Every reason name in a text, in order.
    @Test func reasonsAreReadInOrder() {
        let text = Self.handshake("TLSV1_ALERT_PROTOCOL_VERSION") + " " + Self.handshake("NO_SHARED_CIPHER")
        #expect(NIOTLSFailures.reasons(in: text) == ["TLSV1_ALERT_PROTOCOL_VERSION", "NO_SHARED_CIPHER"])
    }
}
