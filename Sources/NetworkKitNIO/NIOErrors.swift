import AsyncHTTPClient
import Foundation
import NetworkKit
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// SwiftNIO's and AsyncHTTPClient's errors as the `URLError`s URLSession reports for the same
/// failures, so a request fails with the same `NetworkError` case and words on either transport.
/// The NIO error's own text goes along as the detail.
enum NIOErrors {
    static func urlError(for error: any Error, timedOut: Bool) -> any Error {
        if timedOut { return URLError(.timedOut, detail: "no data for longer than the request's timeout") }
        switch error {
        case is URLError, is ParseError, is NetworkError:
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
        case HTTPParserError.invalidEOFState:
            return URLError(.networkConnectionLost, detail: "the server closed the connection before the response ended")
        case is HTTPParserError:
            return URLError(.badServerResponse, detail: "the response is not valid HTTP (\(error))")
        case is NIOSSLError, is BoringSSLError:
            return URLError(.secureConnectionFailed, detail: "\(error)")
        case let error as ChannelError:
            return urlError(for: error)
        default:
            return URLError(.unknown, detail: "\(error)")
        }
    }

    private static func urlError(for error: HTTPClientError) -> URLError {
        switch error {
        case .cancelled, .requestStreamCancelled:
            return URLError(.cancelled)
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
             .tlsHandshakeTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return URLError(.timedOut, detail: "\(error)")
        case .remoteConnectionClosed:
            return URLError(.networkConnectionLost, detail: "the server closed the connection before the response ended")
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return URLError(.badURL, detail: "\(error)")
        case .redirectLimitReached, .redirectCycleDetected:
            return URLError(.httpTooManyRedirects, detail: "\(error)")
        case .bodyLengthMismatch:
            return URLError(.networkConnectionLost, detail: "the body ended before its Content-Length")
        default:
            if "\(error)".contains("unsupportedScheme") { return URLError(.unsupportedURL, detail: "\(error)") }
            return URLError(.unknown, detail: "\(error)")
        }
    }

    private static func urlError(for error: ChannelError) -> URLError {
        switch error {
        case .connectTimeout: URLError(.timedOut, detail: "\(error)")
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            URLError(.networkConnectionLost, detail: "the server closed the connection")
        default: URLError(.unknown, detail: "\(error)")
        }
    }

    private static func urlError(forErrno code: Int32, detail: String) -> URLError {
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: URLError(.cannotConnectToHost, detail: detail)
        case ECONNRESET, EPIPE: URLError(.networkConnectionLost, detail: detail)
        case ETIMEDOUT: URLError(.timedOut, detail: detail)
        default: URLError(.unknown, detail: detail)
        }
    }
}

extension URLError {
    /// A URLError whose description is `detail`.
    init(_ code: Code, detail: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: detail])
    }
}
