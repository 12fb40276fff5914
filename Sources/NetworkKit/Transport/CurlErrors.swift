import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// libcurl's failures as FoundationNetworking reports them, turned into the typed failure of
/// what the server did (`ServerFault`).
///
/// FoundationNetworking keeps only libcurl's message: most failures arrive as `URLError(.unknown)`
/// ("transfer failed (-1)"), a garbage status line as `.unsupportedURL`, a huge header as "Out of
/// memory". The message is the only trace of what happened, so it is matched here, in one place,
/// against the texts of libcurl 7.x and 8.x. Other errors (and URLSession elsewhere, whose
/// errors carry no libcurl text) pass unchanged.
enum CurlErrors {
    /// The failure a transfer that failed with `error` completes with: cancelled; the TLS check
    /// it failed, as `.connection(.tls(host:check:))` with the host of the URL that failed (the
    /// check from libcurl's message, OpenSSL's verify result, or from URLSession's code where it
    /// has no message); else `mapped(error)`. An error that is not a `URLError` fails as `.unknown`.
    static func failure(for error: any Error) -> NetworkError {
        guard let urlError = error as? URLError else {
            return .transport(TransportError(.unknown, detail: "\(error)", underlying: error))
        }
        if urlError.code == .cancelled { return .cancelled }
        if let check = tlsCheck(for: urlError) {
            return .connection(.tls(host: urlError.failingURL?.host ?? "the server", check: check))
        }
        return .transport(mapped(urlError))
    }

    /// `error` with the code and words of the fault libcurl's message names; as it came otherwise.
    static func mapped(_ error: URLError) -> TransportError {
        guard remappable.contains(error.code), let message = message(of: error),
              let fault = fault(for: message, code: error.code) else { return TransportError(error) }
        return TransportError(fault, transportText: "libcurl: \(message)", underlying: error)
    }

    /// libcurl's message, which FoundationNetworking puts as the error's description.
    private static func message(of error: URLError) -> String? {
        error.userInfo[NSLocalizedDescriptionKey] as? String
    }

    /// The TLS check `error` names, if it names one.
    static func tlsCheck(for error: URLError) -> TLSCheck? {
        if let message = message(of: error),
           remappable.contains(error.code) || error.code == .secureConnectionFailed,
           let fault = fault(for: message, code: error.code) {
            return tlsCheck(for: fault, message: message)
        }
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot: return .untrustedRoot
        case .serverCertificateHasBadDate: return .expired
        case .serverCertificateNotYetValid: return .notYetValid
        case .clientCertificateRejected, .clientCertificateRequired: return .clientCertificateRejected
        case .secureConnectionFailed: return .handshake(message(of: error) ?? ServerFault.tlsFailed.summary)
        default: return nil
        }
    }

    /// The check a TLS `fault` read from libcurl's `message` is; nil for a fault that is not TLS.
    private static func tlsCheck(for fault: ServerFault, message: String) -> TLSCheck? {
        switch fault {
        case .certificateUntrusted: return .untrustedRoot
        case .certificateWrongHost: return .nameMismatch
        case .certificateOutOfDate: return message.contains("not yet valid") ? .notYetValid : .expired
        case .notTLS: return .handshake("\(fault.summary) (libcurl: \(message))")
        case .tlsFailed:
            // An alert the server sent about a certificate is about the one this client sent
            // (or did not send): "tlsv13 alert certificate required", "sslv3 alert bad certificate"…
            let alert = message.lowercased()
            if alert.contains("alert"), alert.contains("certificate") || alert.contains("unknown ca") {
                return .clientCertificateRejected
            }
            return .handshake("libcurl: \(message)")
        default: return nil
        }
    }

    /// The codes FoundationNetworking gives failures it did not tell apart; the others (timeouts,
    /// refused connections, unknown hosts, cancellations) are already right.
    private static let remappable: Set<URLError.Code> = [.unknown, .unsupportedURL, .badServerResponse, .networkConnectionLost]

    /// The fault libcurl's `message` names, if it names one.
    static func fault(for message: String, code: URLError.Code) -> ServerFault? {
        if let (_, fault) = faults.first(where: { message.contains($0.text) }) { return fault }
        guard code == .unknown else { return nil }
        // libcurl's buffers for a header line are capped (100 KB in 7.x): past the cap, libcurl
        // 7.x reports only CURLE_OUT_OF_MEMORY, with no message of its own.
        if message == "Out of memory" { return .headersTooLarge }
        // Any other failure of OpenSSL's (certificates, protocol versions…).
        if message.contains("SSL") || message.contains("TLS") { return .tlsFailed }
        return nil
    }

    /// Parts of libcurl's messages, most specific first, and what each means.
    private static let faults: [(text: String, fault: ServerFault)] = [
        ("Received HTTP/0.9", .notHTTP),                         // a status line that is not HTTP/1.x
        ("Unsupported HTTP version", .notHTTP),
        ("Invalid status line", .notHTTP),
        ("Weird server reply", .notHTTP),
        ("Too large response headers", .headersTooLarge),        // the 300 KB cap on the whole head (8.3)
        ("Avoided giant realloc for header", .headersTooLarge),
        ("Header too large", .headersTooLarge),
        ("chunk hex-length", .badChunk),                         // "… char not a hex digit"
        ("chunked-encoding", .badChunk),                         // "Malformed encoding found in …"
        ("invalid chunk", .badChunk),
        ("transfer closed with", .closedEarly),                  // "… N bytes remaining to read"
        ("Connection reset by peer", .closedEarly),              // also inside "OpenSSL SSL_read: …"
        ("unexpected eof while reading", .closedEarly),          // a TLS connection closed mid-answer
        ("Empty reply from server", .closedWithoutAnswer),
        ("wrong version number", .notTLS),                       // OpenSSL reading a plain HTTP answer
        ("packet length too long", .notTLS),
        ("certificate has expired", .certificateOutOfDate),      // "SSL certificate problem: …"
        ("certificate is not yet valid", .certificateOutOfDate),
        ("SSL certificate problem", .certificateUntrusted),      // self-signed, unknown issuer, chain
        ("does not match target host name", .certificateWrongHost),
        ("subject name matches target host", .certificateWrongHost), // "no alternative certificate …"
        ("content unencoding", .badContentEncoding),             // "Error while processing content unencoding: …"
        ("Unrecognized content encoding", .badContentEncoding),
        ("Unrecognized or bad HTTP Content or Transfer-Encoding", .badContentEncoding), // a zstd body libcurl cannot decode
    ]
}
