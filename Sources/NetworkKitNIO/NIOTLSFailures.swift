#if NIO
import Foundation
import NetworkKit
import NIOCore
import NIOSSL

/// The TLS check a NIO failure is.
///
/// BoringSSL reports every failed chain check as `CERTIFICATE_VERIFY_FAILED` without the reason,
/// and NIOSSL's handlers keep no certificate of a failed handshake. So a chain that failed is
/// read again over a second handshake that checks nothing and sends nothing else
/// (``NIOCertificateProbe``): its leaf's dates tell `.expired` and `.notYetValid` apart from
/// `.untrustedRoot`, which is what remains (an expired certificate from an unknown authority
/// reads as expired).
enum NIOTLSFailures {
    /// The check `error` names: `.untrustedRoot` for any failed chain check (see
    /// ``refined(_:host:port:)``), nil when `error` is not a TLS failure.
    static func check(for error: any Error) -> TLSCheck? {
        switch error {
        case let error as NIOPinMismatch:
            return .pinMismatch(presented: error.presented)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .nameMismatch
        case NIOSSLError.handshakeFailed, is BoringSSLError, is NIOSSLExtraError:
            // Not NIOSSL's other errors: an unclean shutdown after the handshake is a dropped
            // connection, as `NIOErrors` reports it.
            return check(forBoringSSLText: "\(error)")
        default:
            return nil
        }
    }

    /// The check a failed handshake is, read from its error's text: BoringSSL gives its reasons
    /// only as names in the text, so they are matched here and nowhere else.
    static func check(forBoringSSLText text: String) -> TLSCheck {
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return .untrustedRoot }
        if peerCertificateAlerts.contains(where: text.contains) { return .clientCertificateRejected }
        let reasons = reasons(in: text)
        if reasons.contains("WRONG_VERSION_NUMBER") {
            return .handshake("the server does not speak TLS on this port (NIO: WRONG_VERSION_NUMBER)")
        }
        if reasons.contains("SSLV3_ALERT_HANDSHAKE_FAILURE") {
            // TLS 1.2 servers refuse a missing client certificate with this alert too.
            return .handshake("the server ended the handshake (NIO: SSLV3_ALERT_HANDSHAKE_FAILURE): no cipher or "
                              + "version in common, or it wants a client certificate")
        }
        return .handshake("NIO: " + (reasons.isEmpty ? text : reasons.joined(separator: ", ")))
    }

    /// `check` made precise for a failed chain: the server at `host`:`port` is asked for its
    /// certificate again, whose dates say whether it has expired or is not valid yet.
    static func refined(_ check: TLSCheck, host: String, port: Int) async -> TLSCheck {
        guard check == .untrustedRoot, let leaf = await NIOCertificateProbe.leaf(host: host, port: port) else {
            return check
        }
        let now = time(nil)
        if leaf.notValidAfter < now { return .expired }
        if leaf.notValidBefore > now { return .notYetValid }
        return check
    }

    /// BoringSSL's reason names in an error's text (`…:OPENSSL_internal:TLSV1_ALERT_PROTOCOL_VERSION at …`).
    static func reasons(in text: String) -> [String] {
        text.components(separatedBy: "OPENSSL_internal:").dropFirst().compactMap { part in
            let name = part.prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            return name.isEmpty ? nil : String(name)
        }
    }

    /// The alerts a server sends about a certificate, which reach a client only about its own
    /// (the certificate it sent, or did not send): BoringSSL's names for alerts 42 to 46, 48
    /// and 116.
    private static let peerCertificateAlerts = [
        "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_REVOKED",
        "SSLV3_ALERT_CERTIFICATE_EXPIRED", "SSLV3_ALERT_CERTIFICATE_UNKNOWN", "TLSV1_ALERT_UNKNOWN_CA",
        "TLSV1_ALERT_CERTIFICATE_REQUIRED",
    ]
}
#endif
