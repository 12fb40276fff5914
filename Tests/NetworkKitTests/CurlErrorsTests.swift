import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import NetworkKit

/// libcurl's messages, including those of versions this machine does not run, as the faults
/// they name (the hostile-server tests see this machine's libcurl say them over the wire).
@Suite("libcurl's failures")
struct CurlErrorsTests {
    @Test(arguments: [
        (URLError.Code.unsupportedURL, "Received HTTP/0.9 when not allowed", ServerFault.notHTTP),
        (.unknown, "Unsupported HTTP version in response", .notHTTP),
        (.unknown, "Out of memory", .headersTooLarge),
        (.unknown, "Too large response headers: 307203 > 307200", .headersTooLarge),
        (.unknown, "Illegal or missing hexadecimal sequence in chunked-encoding", .badChunk),
        (.unknown, "invalid chunk size: 'zz'", .badChunk),
        (.unknown, "transfer closed with 99000 bytes remaining to read", .closedEarly),
        (.unknown, "transfer closed with outstanding read data remaining", .closedEarly),
        (.networkConnectionLost, "OpenSSL SSL_read: Connection reset by peer, errno 104", .closedEarly),
        (.badServerResponse, "Empty reply from server", .closedWithoutAnswer),
        (.unknown, "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .notTLS),
        (.unknown, "SSL certificate problem: self-signed certificate", .certificateUntrusted),
        (.unknown, "SSL certificate problem: unable to get local issuer certificate", .certificateUntrusted),
        (.unknown, "SSL certificate problem: certificate has expired", .certificateOutOfDate),
        (.unknown, "SSL: no alternative certificate subject name matches target host name 'x.test'", .certificateWrongHost),
        (.unknown, "SSL: certificate subject name 'a.test' does not match target host name 'b.test'", .certificateWrongHost),
        (.unknown, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", .tlsFailed),
        (.unknown, "Error while processing content unencoding: invalid block type", .badContentEncoding),
    ])
    func messageNamesTheFault(code: URLError.Code, message: String, fault: ServerFault) throws {
        let failingURL = try #require(URL(string: "http://127.0.0.1:1/x"))
        let reported = URLError(code, userInfo: [NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: failingURL])
        let mapped = CurlErrors.mapped(reported)
        #expect(mapped.code == fault.code)
        #expect(mapped.detail == "\(fault.summary) (libcurl: \(message))")
        #expect((mapped.underlying as? URLError)?.failingURL == failingURL)
    }

    @Test(arguments: [
        (URLError.Code.timedOut, "SSL connection timeout"),
        (.cannotConnectToHost, "Failed to connect to 127.0.0.1 port 1: Connection refused"),
        (.cancelled, "cancelled"),
        (.unknown, "a message libcurl never wrote"),
    ])
    func rightOrUnknownFailuresPassUnchanged(code: URLError.Code, message: String) throws {
        let mapped = CurlErrors.mapped(URLError(code, detail: message))
        #expect(mapped.code == code)
        #expect(mapped.detail == message)
    }
}

extension URLError {
    /// A URLError as FoundationNetworking reports one: `message` (libcurl's) as its description.
    init(_ code: Code, detail message: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
