import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the session delegate tells a running request. `Request` is the one conformer;
/// the protocol erases its `Output` so one task map can hold every request.
protocol TransportClient: AnyObject, Sendable {
    var id: RequestID { get }
    func transportDidReceive(response: URLResponse)
    func transportDidReceive(data: Data)
    func transportDidSend(totalBytes: Int64, expected: Int64)
    func transportDidComplete(error: (any Error)?)
    func cancel()
}
