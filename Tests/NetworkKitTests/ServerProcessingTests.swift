import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP2
import Testing
@testable import NetworkKit
@testable import NetworkKitNIO

/// Whether the server processed a failed request, without a server: how the NIO transport reads
/// HTTP/2 stream closures, how the words read, and how the retry policy counts and decides.
@Suite("Server processing")
struct ServerProcessingTests {
    /// Stream closures as the NIO transport reads them: a refused stream or one above a
    /// `GOAWAY`'s last stream ID was not processed; any other reset may have been.
    @Test("HTTP/2 stream closures", arguments: [
        (NIOHTTP2.HTTP2ErrorCode.refusedStream, nil, 5, ServerProcessing.notProcessed),
        (.refusedStream, 7, 5, .notProcessed),
        (.cancel, 3, 5, .notProcessed),          // above the GOAWAY's line
        (.cancel, 5, 5, .mayHaveProcessed),      // the last stream the server kept
        (.cancel, nil, 5, .mayHaveProcessed),    // no GOAWAY: a reset
        (.internalError, 3, 5, .notProcessed),
        (.internalError, nil, 5, .mayHaveProcessed),
    ] as [(NIOHTTP2.HTTP2ErrorCode, Int?, Int, ServerProcessing)])
    func streamClosures(_ code: NIOHTTP2.HTTP2ErrorCode, goAway: Int?, stream: Int, expected: ServerProcessing) {
        let failure = HTTP2StreamFailure(streamID: HTTP2StreamID(stream), errorCode: code,
                                         goAwayLastStreamID: goAway.map { HTTP2StreamID($0) })
        #expect(failure.processing == expected)
        guard case .transport(let error) = NIOErrors.failure(for: failure) else {
            Issue.record("\(failure) is not a failed transfer")
            return
        }
        #expect(error.code == .networkConnectionLost)
        #expect(error.serverProcessing == expected)
        #expect(error.description.hasSuffix(expected.summary))
        #expect(error.underlying is HTTP2StreamFailure)
    }

    /// The failure's words name what happened and what it means for the request.
    @Test func theWordsSayWhatHappened() {
        let above = HTTP2StreamFailure(streamID: HTTP2StreamID(2005), errorCode: .cancel, goAwayLastStreamID: HTTP2StreamID(1999))
        #expect(NIOErrors.failure(for: above).description
            == "transport error: network connection lost (-1005): the server closed its HTTP/2 connection (GOAWAY, "
            + "last stream 1999) before stream 2005: the server did not process the request")
        let reset = HTTP2StreamFailure(streamID: HTTP2StreamID(9), errorCode: .cancel, goAwayLastStreamID: nil)
        #expect(NIOErrors.failure(for: reset).description
            == "transport error: network connection lost (-1005): the server reset HTTP/2 stream 9 (CANCEL): "
            + "the server may have processed the request")
    }

    /// A lost connection that already says whether the server processed the request keeps it.
    @Test func sayingKeepsWhatTheTransportSaid() {
        let said = TransportError(.networkConnectionLost, detail: "refused", serverProcessing: .notProcessed)
        #expect(said.saying(.mayHaveProcessed).serverProcessing == .notProcessed)
        let plain = TransportError(.networkConnectionLost, detail: "the server closed the connection")
        let marked = plain.saying(.closedBeforeAnswer)
        #expect(marked.serverProcessing == .closedBeforeAnswer)
        #expect(marked.description == "network connection lost (-1005): the server closed the connection: "
            + "the connection closed before any answer")
        #expect(NetworkError.transport(marked).serverProcessing == .closedBeforeAnswer)
        #expect(NetworkError.cancelled.serverProcessing == nil)
    }

    /// The retry policy counts attempts the server did not process as none of its own.
    @Test func theRetryPolicyDoesNotCountUnprocessedAttempts() async throws {
        let policy = RetryPolicy(maxRetries: 1, backoff: Backoff(initial: .zero, jitter: 0))
        let request = try OutgoingRequest(url: URL(string: "http://127.0.0.1/")!)
        let lost = NetworkError.transport(TransportError(.networkConnectionLost, detail: "reset", serverProcessing: .mayHaveProcessed))
        func decision(attempt: Int, unprocessed: Int, idempotent: Bool) async -> RetryDecision {
            let context = InterceptorContext(requestID: RequestID(rawValue: 1), attempt: attempt,
                                             unprocessedAttempts: unprocessed, isIdempotent: idempotent)
            return await policy.retry(request, dueTo: lost, context: context)
        }
        #expect(await decision(attempt: 1, unprocessed: 0, idempotent: true) == .retry(after: .zero))
        #expect(await decision(attempt: 2, unprocessed: 0, idempotent: true) == .doNotRetry)
        #expect(await decision(attempt: 3, unprocessed: 2, idempotent: true) == .retry(after: .zero))   // its first retry
        #expect(await decision(attempt: 1, unprocessed: 0, idempotent: false) == .doNotRetry)             // a POST that may have been processed
    }
}
