import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a server did wrong, as the transports' error mappings name it (libcurl's messages in
/// `CurlErrors`, SwiftNIO's errors in NetworkKitNIO), so the same server behaviour fails with
/// the same code and words on either transport (`TransportError(_:transportText:)`); the
/// transport's own text follows.
package enum ServerFault: Sendable {
    /// The answer does not start with an HTTP status line.
    case notHTTP
    /// The header fields are larger than the transport holds.
    case headersTooLarge
    /// A chunked body has a malformed chunk.
    case badChunk
    /// The connection closed before the response ended (a body shorter than announced, a
    /// dropped connection).
    case closedEarly
    /// The connection closed before any answer came.
    case closedWithoutAnswer
    /// TLS was asked for and the server answered in something else (a plain HTTP port).
    case notTLS
    /// The TLS handshake failed for another reason.
    case tlsFailed
    /// The server's certificate is not signed by an authority this machine trusts (self-signed,
    /// an unknown root, an incomplete chain).
    case certificateUntrusted
    /// The server's certificate names another host.
    case certificateWrongHost
    /// The server's certificate has expired or is not valid yet.
    case certificateOutOfDate
    /// The body's `Content-Encoding` (gzip, deflate, brotli, zstd) does not decode: corrupt or cut short.
    case badContentEncoding

    /// The code a caller switches on.
    package var code: URLError.Code {
        switch self {
        case .notHTTP, .headersTooLarge, .badChunk: .badServerResponse
        case .closedEarly, .closedWithoutAnswer: .networkConnectionLost
        case .notTLS, .tlsFailed: .secureConnectionFailed
        case .certificateUntrusted, .certificateWrongHost: .serverCertificateUntrusted
        case .certificateOutOfDate: .serverCertificateHasBadDate
        case .badContentEncoding: .cannotDecodeContentData
        }
    }

    /// What happened, in words a user can act on.
    package var summary: String {
        switch self {
        case .notHTTP: "the server's answer is not HTTP (no valid status line)"
        case .headersTooLarge: "the server's response headers are too large"
        case .badChunk: "the server's chunked body is malformed"
        case .closedEarly: "the server closed the connection before the response ended"
        case .closedWithoutAnswer: "the server closed the connection without answering"
        case .notTLS: "the server does not speak TLS on this port (an https URL to a plain HTTP port?)"
        case .tlsFailed: "the TLS handshake failed"
        case .certificateUntrusted: "the server's certificate is not trusted (self-signed or from an unknown authority)"
        case .certificateWrongHost: "the server's certificate is for another host name"
        case .certificateOutOfDate: "the server's certificate has expired or is not valid yet"
        case .badContentEncoding: "the server's compressed body (Content-Encoding) is corrupt or cut short"
        }
    }
}
