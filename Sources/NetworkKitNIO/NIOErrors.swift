#if NIO
import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// SwiftNIO's and AsyncHTTPClient's errors as the `URLError`s URLSession reports for the same
/// failures, so a request fails with the same `NetworkError` case and words on either transport.
/// The NIO error's own text goes along as the detail.
enum NIOErrors {
    static func urlError(for error: any Error) -> any Error {
        switch error {
        case is URLError, is NetworkError:
            return error
        case is CancellationError:
            return URLError(.cancelled)
        case let error as HTTPClientError:
            return urlError(for: error)
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return URLError(.cannotFindHost, detail: "cannot resolve \(error.host)")
            }
            return URLError(.cannotConnectToHost, detail: "cannot connect to \(error.host):\(error.port)")
        case let error as IOError:
            return urlError(forErrno: error.errnoCode, detail: "\(error)")
        case is SocketAddressError:
            return URLError(.cannotFindHost, detail: "\(error)")
        case let error as HTTP2StreamFailure:
            return URLError(.networkConnectionLost, detail: "\(error)", serverProcessing: error.processing)
        case let error as NIOHTTP2Errors.StreamClosed:
            // A stream without the transport's handler: its connection's GOAWAY is not known.
            let failure = HTTP2StreamFailure(streamID: error.streamID, errorCode: error.errorCode, goAwayLastStreamID: nil)
            return URLError(.networkConnectionLost, detail: "\(failure)", serverProcessing: failure.processing)
        case is NIOHTTP2Errors.CreatedStreamAfterGoaway:
            return URLError(.networkConnectionLost, detail: "the server closed its HTTP/2 connection (GOAWAY) before the request's stream opened",
                            serverProcessing: .notProcessed)
        case let error as HTTPParserError:
            return urlError(for: error)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return ServerFault.certificateWrongHost.urlError("NIO: \(error)")
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return tlsFault(for: "\(error)").urlError("NIO: \(error)")
        case let error as ChannelError:
            return urlError(for: error)
        default:
            return URLError(.unknown, detail: "\(error)")
        }
    }

    /// The fault BoringSSL's error text names. BoringSSL reports every failed certificate check
    /// as CERTIFICATE_VERIFY_FAILED, so an expired certificate is "not trusted" here where
    /// libcurl's text lets URLSession say "expired".
    private static func tlsFault(for text: String) -> ServerFault {
        if text.contains("WRONG_VERSION_NUMBER") { return .notTLS }  // a plain HTTP answer read as TLS
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return .certificateUntrusted }
        return .tlsFailed
    }

    private static func urlError(for error: HTTPClientError) -> URLError {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return URLError(.cancelled)
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
             .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return URLError(.timedOut, detail: "\(error)")
        case .remoteConnectionClosed:
            return ServerFault.closedEarly.urlError("NIO: \(error)")
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return URLError(.badURL, detail: "\(error)")
        case .redirectLimitReached, .redirectCycleDetected:
            return URLError(.httpTooManyRedirects, detail: "\(error)")
        case .bodyLengthMismatch:
            return ServerFault.closedEarly.urlError("NIO: the body ended before its Content-Length")
        default:
            return URLError(.unknown, detail: "\(error)")
        }
    }

    private static func urlError(for error: HTTPParserError) -> URLError {
        let text = "NIO: \(error.debugDescription)"
        switch error {
        case .invalidEOFState: return ServerFault.closedEarly.urlError(text)
        case .invalidConstant, .invalidVersion, .invalidStatus: return ServerFault.notHTTP.urlError(text)
        case .headerOverflow: return ServerFault.headersTooLarge.urlError(text)
        case .invalidChunkSize: return ServerFault.badChunk.urlError(text)
        default: return URLError(.badServerResponse, detail: "the response is not valid HTTP (\(text))")
        }
    }

    private static func urlError(for error: ChannelError) -> URLError {
        switch error {
        case .connectTimeout: URLError(.timedOut, detail: "\(error)")
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            ServerFault.closedEarly.urlError("NIO: \(error)")
        default: URLError(.unknown, detail: "\(error)")
        }
    }

    private static func urlError(forErrno code: Int32, detail: String) -> URLError {
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: URLError(.cannotConnectToHost, detail: detail)
        case ECONNRESET, EPIPE: ServerFault.closedEarly.urlError("NIO: \(detail)")
        case ETIMEDOUT: URLError(.timedOut, detail: detail)
        default: URLError(.unknown, detail: detail)
        }
    }
}
#endif
