import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether a server may have acted on a request whose connection or stream failed before an
/// answer arrived, as far as the transport can tell. A transport says it on the failure it
/// completes with (``TransportError/serverProcessing``); a request's failure reports it
/// (``NetworkError/serverProcessing``), so a retry policy can tell a request it may send again
/// from one it must not.
///
/// What the kit does with each (RFC 9113 §8.7, RFC 9110 §9.2.2):
///
/// | value | the kit | the retry policy |
/// |---|---|---|
/// | ``notProcessed`` | sends the request again at once, on a fresh connection, whatever its method | does not count that attempt |
/// | ``closedBeforeAnswer`` | sends an idempotent request again at once | does not count that attempt |
/// | ``mayHaveProcessed`` | nothing | decides: an idempotent request may be retried, a POST is not |
///
/// These sends again are bounded (``ServiceConfiguration/unprocessedResendLimit``) and each one is
/// an attempt the event monitors see (`EventMonitor/request(_:willResendUnprocessed:error:)`).
public enum ServerProcessing: String, Sendable, CaseIterable {
    /// The server did not process the request: it said so (an HTTP/2 stream reset with
    /// `REFUSED_STREAM`, a stream above the last stream ID of its `GOAWAY`, as a server closing a
    /// connection after so many requests or on a deploy sends), or the request never went out
    /// (the connection it was given to closed first).
    case notProcessed
    /// The connection closed before any byte of an answer came: on HTTP/1.1, most often a
    /// keep-alive connection the server closed as the request went out on it. Nothing proves the
    /// server did not act on it, so only an idempotent request is sent again.
    case closedBeforeAnswer
    /// The stream was reset or the connection lost after the request went out, when the server
    /// may have acted on it (HTTP/2 `CANCEL` or `INTERNAL_ERROR` below a `GOAWAY`'s line, an
    /// answer cut short).
    case mayHaveProcessed

    /// What it means for the request, in words for an error message.
    public var summary: String {
        switch self {
        case .notProcessed: "the server did not process the request"
        case .closedBeforeAnswer: "the connection closed before any answer"
        case .mayHaveProcessed: "the server may have processed the request"
        }
    }
}

extension NetworkError {
    /// Whether the server may have processed the request, for a transport failure whose transport
    /// could tell; nil otherwise.
    public var serverProcessing: ServerProcessing? {
        guard case .transport(let error) = self else { return nil }
        return error.serverProcessing
    }
}
