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

/// SwiftNIO's and AsyncHTTPClient's errors as the failures URLSession reports for the same
/// failures (the same code, and the same words where the server was at fault), so a request fails
/// with the same `NetworkError` case and words on either transport. The NIO error's own text goes
/// along as the detail, the error itself as the underlying error.
enum NIOErrors {
    /// The failure a transfer that failed with `error` completes with.
    static func failure(for error: any Error) -> NetworkError {
        switch error {
        case let error as TransportError:
            return .transport(error)
        case let error as URLError:
            return NetworkError(error)
        case is CancellationError:
            return .cancelled
        case let error as HTTPClientError where error == .cancelled || error == .requestStreamCancelled:
            return .cancelled
        default:
            return .transport(transportError(for: error))
        }
    }

    /// What failed, for an error of SwiftNIO's or AsyncHTTPClient's.
    private static func transportError(for error: any Error) -> TransportError {
        switch error {
        case let error as HTTPClientError:
            return transportError(for: error)
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return TransportError(.cannotFindHost, detail: "cannot resolve \(error.host)", underlying: error)
            }
            return TransportError(.cannotConnectToHost, detail: "cannot connect to \(error.host):\(error.port)", underlying: error)
        case let error as IOError:
            return transportError(forErrno: error.errnoCode, error: error)
        case is SocketAddressError:
            return TransportError(.cannotFindHost, detail: "\(error)", underlying: error)
        case let error as HTTP2StreamFailure:
            return TransportError(.networkConnectionLost, detail: "\(error)", serverProcessing: error.processing,
                                  underlying: error)
        case let error as NIOHTTP2Errors.StreamClosed:
            // A stream without the transport's handler: its connection's GOAWAY is not known.
            let failure = HTTP2StreamFailure(streamID: error.streamID, errorCode: error.errorCode, goAwayLastStreamID: nil)
            return TransportError(.networkConnectionLost, detail: "\(failure)", serverProcessing: failure.processing,
                                  underlying: error)
        case is NIOHTTP2Errors.CreatedStreamAfterGoaway:
            return TransportError(.networkConnectionLost,
                                  detail: "the server closed its HTTP/2 connection (GOAWAY) before the request's stream opened",
                                  serverProcessing: .notProcessed, underlying: error)
        case let error as HTTPParserError:
            return transportError(for: error)
        case NIOSSLError.uncleanShutdown:
            // The TLS connection closed without its close_notify: a dropped connection.
            return TransportError(.closedEarly, transportText: "NIO: \(error)", underlying: error)
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            // Failed checks and handshakes are `NIOTLSFailures`' (read before this); what is left
            // is TLS failing in another way.
            return TransportError(.tlsFailed, transportText: "NIO: \(error)", underlying: error)
        case let error as ChannelError:
            return transportError(for: error)
        default:
            return TransportError(.unknown, detail: "\(error)", underlying: error)
        }
    }

    private static func transportError(for error: HTTPClientError) -> TransportError {
        switch error {
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
             .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return TransportError(.timedOut, detail: "\(error)", underlying: error)
        case .remoteConnectionClosed:
            return TransportError(.closedEarly, transportText: "NIO: \(error)", underlying: error)
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return TransportError(.badURL, detail: "\(error)", underlying: error)
        case .redirectLimitReached, .redirectCycleDetected:
            return TransportError(.httpTooManyRedirects, detail: "\(error)", underlying: error)
        case .bodyLengthMismatch:
            return TransportError(.closedEarly, transportText: "NIO: the body ended before its Content-Length", underlying: error)
        default:
            return TransportError(.unknown, detail: "\(error)", underlying: error)
        }
    }

    private static func transportError(for error: HTTPParserError) -> TransportError {
        let text = "NIO: \(error.debugDescription)"
        switch error {
        case .invalidEOFState: return TransportError(.closedEarly, transportText: text, underlying: error)
        case .invalidConstant, .invalidVersion, .invalidStatus: return TransportError(.notHTTP, transportText: text, underlying: error)
        case .headerOverflow: return TransportError(.headersTooLarge, transportText: text, underlying: error)
        case .invalidChunkSize: return TransportError(.badChunk, transportText: text, underlying: error)
        default: return TransportError(.badServerResponse, detail: "the response is not valid HTTP (\(text))", underlying: error)
        }
    }

    private static func transportError(for error: ChannelError) -> TransportError {
        switch error {
        case .connectTimeout: TransportError(.timedOut, detail: "\(error)", underlying: error)
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            TransportError(.closedEarly, transportText: "NIO: \(error)", underlying: error)
        default: TransportError(.unknown, detail: "\(error)", underlying: error)
        }
    }

    private static func transportError(forErrno code: Int32, error: IOError) -> TransportError {
        let detail = "\(error)"
        return switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: TransportError(.cannotConnectToHost, detail: detail, underlying: error)
        case ECONNRESET, EPIPE: TransportError(.closedEarly, transportText: "NIO: \(detail)", underlying: error)
        case ETIMEDOUT: TransportError(.timedOut, detail: detail, underlying: error)
        default: TransportError(.unknown, detail: detail, underlying: error)
        }
    }
}
#endif
