import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives the URLSession's callbacks (on its serial delegate queue) and forwards each to the
/// request its task serves. Only tasks of requests with progress handlers send these events;
/// the others end in a completion handler on the same queue.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let registry: TaskRegistry

    init(registry: TaskRegistry) {
        self.registry = registry
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        registry.client(forTask: dataTask.taskIdentifier)?.transportDidReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        registry.client(forTask: dataTask.taskIdentifier)?.transportDidReceive(data: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        registry.client(forTask: task.taskIdentifier)?
            .transportDidSend(totalBytes: totalBytesSent, expected: totalBytesExpectedToSend)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        registry.client(forTask: task.taskIdentifier)?.transportDidComplete(error: error)
    }
}
