import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transfer's failure as its transport reports it: what failed (``code``, in the terms of
/// Foundation's `URLError`, the same on every transport), whether the server may have processed
/// the request (``serverProcessing``), the transport's own words (``detail``) and the error its
/// library reported (``underlying``). `NetworkError.transport` carries it.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// What failed: `.timedOut`, `.cannotConnectToHost`, `.networkConnectionLost`…
    public let code: URLError.Code
    /// Whether the server may have processed the request, when the transport could tell; the kit
    /// sends a request again on it (see ``ServerProcessing``).
    public let serverProcessing: ServerProcessing?
    /// What failed in the transport's words, when it said more than the code; empty otherwise.
    public let detail: String
    /// The error the transport's library reported (URLSession's `URLError`, AsyncHTTPClient's
    /// `HTTPClientError`, an I/O error…), when there was one.
    public let underlying: (any Error)?

    /// A failure of `code`: `detail` in the transport's words, whether the server processed the
    /// request as far as the transport can tell, and the error under it.
    public init(_ code: URLError.Code, detail: String = "", serverProcessing: ServerProcessing? = nil,
                underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.serverProcessing = serverProcessing
        self.underlying = underlying
    }

    /// A failure for what the server did wrong (`fault`), its code the fault's and its detail the
    /// fault's summary followed by `transportText`, what the transport itself said.
    package init(_ fault: ServerFault, transportText: String, serverProcessing: ServerProcessing? = nil,
                 underlying: (any Error)? = nil) {
        self.init(fault.code, detail: "\(fault.summary) (\(transportText))", serverProcessing: serverProcessing,
                  underlying: underlying)
    }

    /// A Foundation `URLError` as the transport reported it: its code, and the description it
    /// carries as its detail (none when it carries only Foundation's generic words).
    package init(_ error: URLError, serverProcessing: ServerProcessing? = nil) {
        let detail = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        self.init(error.code, detail: detail, serverProcessing: serverProcessing, underlying: error)
    }

    /// This failure saying `processing`, unless it says already whether the server processed
    /// the request: a transport's own finding wins over what the kit infers after it.
    package func saying(_ processing: ServerProcessing) -> TransportError {
        guard serverProcessing == nil else { return self }
        return TransportError(code, detail: detail, serverProcessing: processing, underlying: underlying)
    }

    /// The failure as a Foundation `URLError`, for code that wants one: the code, the description
    /// as its localized description, the underlying error when there is one.
    public var urlError: URLError {
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let underlying { userInfo[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: userInfo)
    }

    /// The code in words and its number, then the transport's words and what the failure means
    /// for the request when the transport could tell.
    public var description: String {
        var text = "\(Self.words[code] ?? "URLError") (\(code.rawValue))"
        if !detail.isEmpty { text += ": \(detail)" }
        if let serverProcessing { text += ": \(serverProcessing.summary)" }
        return text
    }

    /// Words for the codes that the kit, its transports (URLSession, NIO, the stub) and their file
    /// handling report; another code reads as `URLError` and its number.
    static let words: [URLError.Code: String] = [
        .timedOut: "timed out", .cannotConnectToHost: "cannot connect to host",
        .networkConnectionLost: "network connection lost", .cannotFindHost: "cannot find host",
        .notConnectedToInternet: "not connected to the internet", .badServerResponse: "bad server response",
        .secureConnectionFailed: "secure connection failed", .badURL: "bad URL",
        .unsupportedURL: "unsupported URL", .dnsLookupFailed: "DNS lookup failed", .unknown: "transfer failed",
        .cancelled: "cancelled", .resourceUnavailable: "resource unavailable",
        .httpTooManyRedirects: "too many redirects", .redirectToNonExistentLocation: "redirect without a location",
        .cannotDecodeContentData: "cannot decode the compressed body", .cannotDecodeRawData: "cannot decode the data",
        .cannotParseResponse: "cannot parse the response", .zeroByteResource: "empty response",
        .dataLengthExceedsMaximum: "response longer than allowed",
        .userAuthenticationRequired: "authentication required",
        .serverCertificateUntrusted: "server certificate not trusted",
        .serverCertificateHasBadDate: "server certificate expired or not yet valid",
        .serverCertificateHasUnknownRoot: "server certificate from an unknown authority",
        .serverCertificateNotYetValid: "server certificate not yet valid",
        .clientCertificateRejected: "client certificate rejected", .clientCertificateRequired: "client certificate required",
        .fileDoesNotExist: "file does not exist", .fileIsDirectory: "file is a directory",
        .noPermissionsToReadFile: "no permission to read the file", .cannotOpenFile: "cannot open file",
        .cannotCreateFile: "cannot create file", .cannotWriteToFile: "cannot write to file",
        .cannotMoveFile: "cannot move file", .cannotRemoveFile: "cannot remove file",
    ]
}
