import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default transport: one `URLSession` (FoundationNetworking on Linux) with a delegate, so
/// every transfer streams its head, body chunks and upload progress as they happen, whatever
/// handlers the request has. It hands every redirect to the kit, and delivers content-encoded
/// bodies inflated (URLSession inflates them, and cannot be told not to).
public final class URLSessionTransport: Transport {
    /// The one session behind this transport.
    package let session: URLSession

    /// True: URLSession inflates gzip and deflate bodies itself.
    public var decodesContentEncoding: Bool { true }
    let transfers: URLSessionTransfers
    /// Runs the session's delegate callbacks in order. Held here: `OperationQueue` keeps its
    /// underlying queue unowned.
    private let delegateDispatchQueue: DispatchQueue

    /// Creates the transport; `configuration` is copied into its own session, without its
    /// `URLCache` (see `sessionConfiguration(_:)`).
    public convenience init(configuration: URLSessionConfiguration = .default) {
        self.init(configuration: configuration,
                  delegateQueue: DispatchQueue(label: "NetworkKit.urlsession-delegate", qos: .userInitiated))
    }

    /// A transport as ``init(configuration:)`` makes it, that reaches servers as `connection`
    /// says. Throws `NetworkError.connection(.unsupported(feature:transport:))` for a setting
    /// URLSession cannot honour on this platform (the table is in "Proxies, trust and cookies").
    public convenience init(configuration: URLSessionConfiguration = .default,
                            connection: ConnectionSettings) throws(NetworkError) {
        let configured = try Self.sessionConfiguration(configuration, connection: connection)
        self.init(configuration: configured,
                  delegateQueue: DispatchQueue(label: "NetworkKit.urlsession-delegate", qos: .userInitiated))
    }

    /// A transport whose session calls its delegate on `delegateQueue`, a serial queue. A service
    /// passes its pipeline queue, so a finished transfer resumes its pipeline without a thread hop.
    init(configuration: URLSessionConfiguration, delegateQueue delegateDispatchQueue: DispatchQueue) {
        self.delegateDispatchQueue = delegateDispatchQueue
        let transfers = URLSessionTransfers()
        let delegateQueue = Self.delegateOperationQueue(target: delegateDispatchQueue)
        self.transfers = transfers
        session = URLSession(configuration: Self.sessionConfiguration(configuration),
                             delegate: URLSessionEventForwarder(transfers: transfers),
                             delegateQueue: delegateQueue)
    }

    /// A serial operation queue whose blocks run on `target`; on Linux one that skips
    /// `OperationQueue`'s per-block bookkeeping (see ``SerialDelegateQueue``).
    private static func delegateOperationQueue(target: DispatchQueue) -> OperationQueue {
        #if canImport(FoundationNetworking)
        let queue: OperationQueue = SerialDelegateQueue(target: target)
        #else
        let queue = OperationQueue()
        #endif
        queue.name = "NetworkKit.urlsession-delegate"
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = target
        return queue
    }

    /// A copy of `configuration` without a `URLCache` or cookie storage: the kit caches with its
    /// own ``ResponseCache`` and keeps cookies in the service's ``CookieJar``, and on Linux a session with a `URLCache` traps the process when a task
    /// is cancelled while the cache is being read for it (FoundationNetworking then reports the
    /// cancel for a task it has already dropped).
    package static func sessionConfiguration(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The service's `CookieJar` is the one cookie store, the same on every transport.
        copy.httpCookieStorage = nil
        copy.httpShouldSetCookies = false
        copy.httpCookieAcceptPolicy = .never
        return copy
    }

    /// Starts a data task (an upload task when the body is a file, or a stream written to a file
    /// first) whose events go to `events`: the one place the kit makes a `URLRequest` of what it
    /// sends.
    public func start(_ request: OutgoingRequest, events: any TransportEvents) -> any TransportTask {
        start(request, priority: .normal, events: events)
    }

    /// The same, with `priority` as the task's `URLSessionTask.priority`.
    public func start(_ request: OutgoingRequest, priority: RequestPriority, events: any TransportEvents) -> any TransportTask {
        guard let urlRequest = Self.urlRequest(request) else {
            events.transportDidComplete(failure: .transport(TransportError(.badURL, detail: "\(request.head.urlString) is not a URL")))
            return FinishedTransportTask()
        }
        if case .stream(let stream) = request.body {
            return startStreamedBody(stream, urlRequest: urlRequest, priority: priority, events: events)
        }
        let task = request.bodyFile.map { session.uploadTask(with: urlRequest, fromFile: $0) } ?? session.dataTask(with: urlRequest)
        resume(task, priority: priority, events: events)
        return URLSessionTransportTask(task: task)
    }

    /// Gives `task` its priority, sends its callbacks to `events`, and starts it.
    func resume(_ task: URLSessionTask, priority: RequestPriority, events: any TransportEvents) {
        // A new task has the default priority already. Setting it is not free: FoundationNetworking
        // guards the property with the task's work queue, so each set is a dispatch to it.
        if priority != .normal { task.priority = priority.urlSessionPriority }
        transfers.insert(events, for: task.taskIdentifier)
        task.resume()
    }

    /// `request` as Foundation's `URLRequest` (nil when its head makes no URL), with
    /// FoundationNetworking's own idle timer set to twice the request's timeout plus 5 s. The kit
    /// fails an idle transfer at its timeout itself (the transport contract); FoundationNetworking's
    /// timer, on a loaded machine, has fired after 3 s of a 5 s timeout with bytes arriving every
    /// 100 ms, so it is only the backstop.
    static func urlRequest(_ request: OutgoingRequest) -> URLRequest? {
        guard var urlRequest = request.urlRequest else { return nil }
        urlRequest.timeoutInterval = IdleTimeout(request).map { $0.duration.inSeconds * 2 + 5 } ?? IdleTimeout.never
        return urlRequest
    }

    /// Lets running tasks finish, then releases the session.
    public func finishAndInvalidate() {
        session.finishTasksAndInvalidate()
    }

    /// How many transfers are under way.
    var activeTransferCount: Int {
        transfers.count + transfers.webSocketCount
    }
}

/// A running data task.
struct URLSessionTransportTask: TransportTask {
    let task: URLSessionTask

    func cancel() {
        task.cancel()
    }
}

/// The session's map from task identifiers to whoever hears that task's events.
final class URLSessionTransfers: Sendable {
    private let map = Protected<[Int: any TransportEvents]>([:])
    /// The WebSocket tasks, opening or open, apart: their callbacks are not a data task's.
    let webSockets = Protected<[Int: URLSessionWebSocketTransfer]>([:])

    func insert(_ events: any TransportEvents, for taskID: Int) {
        map.withLock { $0[taskID] = events }
    }

    func events(for taskID: Int) -> (any TransportEvents)? {
        map.withLock { $0[taskID] }
    }

    func remove(_ taskID: Int) -> (any TransportEvents)? {
        map.withLock { $0.removeValue(forKey: taskID) }
    }

    var count: Int {
        map.withLock { $0.count }
    }
}

/// Receives the session's callbacks on its serial delegate queue and forwards each to the
/// transfer its task belongs to.
final class URLSessionEventForwarder: NSObject, URLSessionDataDelegate, Sendable {
    let transfers: URLSessionTransfers
    init(transfers: URLSessionTransfers) {
        self.transfers = transfers
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse {
            // The proxies the session sends through are read only for a `407`, to tell a proxy's
            // from a server's.
            if let refusal = URLSessionTransport.proxyRefusal(http), let events = transfers.remove(dataTask.taskIdentifier) {
                // The proxy answered an absolute-form request itself.
                completionHandler(.cancel)
                events.transportDidComplete(failure: refusal)
                return
            }
            guard let head = ResponseHead(http) else {
                completionHandler(.cancel)
                transfers.remove(dataTask.taskIdentifier)?.transportDidComplete(
                    failure: .unreadableStatus(http.statusCode))
                return
            }
            transfers.events(for: dataTask.taskIdentifier)?.transportDidReceive(head: head)
        }
        completionHandler(.allow)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The kit follows redirects itself, the same for every transport: the 3xx is the response.
        completionHandler(nil)
    }

    /// A 401 whose `WWW-Authenticate` names a scheme arrives here once its head and body have been
    /// delivered. Authentication is the interceptors' (`BasicAuthentication`, `TokenRefresher`),
    /// the same on every transport, so the 401 completes the transfer as it came. (Left to
    /// FoundationNetworking on Linux, the task would wait for ever without a credential, or send
    /// an empty one.)
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if let response = challenge.failureResponse {
            if let events = transfers.remove(task.taskIdentifier) {
                events.transportDidComplete(failure: nil)
            } else {
                webSocketRefused(task, response: response)
            }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfers.events(for: dataTask.taskIdentifier)?.transportDidReceive(chunk: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        transfers.events(for: task.taskIdentifier)?
            .transportDidSend(bytes: totalBytesSent, of: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let events = transfers.remove(task.taskIdentifier) else {
            webSocketDidComplete(task, error: error)
            return
        }
        if error == nil, !(task.response is HTTPURLResponse) {
            events.transportDidComplete(failure: .failed(.badServerResponse, detail: "the answer has no HTTP response"))
        } else {
            events.transportDidComplete(failure: error.map(CurlErrors.failure(for:)))
        }
    }
}

extension URLSessionTransport {
    /// The failure a `407` from one of the session's proxies is; nil for any other answer.
    static func proxyRefusal(_ http: HTTPURLResponse) -> NetworkError? {
        guard http.statusCode == 407, let url = http.url, let proxy = proxyInEffect.proxy(for: url) else { return nil }
        return .connection(.proxyAuthenticationRequired(proxy: proxy.description))
    }
}

extension ResponseHead {
    /// The head of a URLSession response. FoundationNetworking hands the fields over as a
    /// dictionary, repeated fields joined with ", ": the order the server sent is gone, so the
    /// fields are put in order of name; `Set-Cookie` is split back into one field per cookie
    /// (``SetCookieFields``); a field whose name is not a token is left out. Nil for a status
    /// code outside 0...999.
    init?(_ http: HTTPURLResponse) {
        guard let status = HTTPResponse.Status(received: http.statusCode) else { return nil }
        var named: [(HTTPField.Name, String)] = []
        named.reserveCapacity(http.allHeaderFields.count)
        for (key, value) in http.allHeaderFields {
            guard let key = key.base as? String, let value = value as? String, let name = HTTPField.Name(key) else { continue }
            named.append((name, value))
        }
        named.sort { $0.0.canonicalName < $1.0.canonicalName }
        var fields = HTTPFields()
        fields.reserveCapacity(named.count)
        for (name, value) in named {
            if name == .setCookie {
                for cookie in SetCookieFields.split(value) { fields.append(HTTPField(name: name, value: cookie)) }
            } else {
                fields.append(HTTPField(name: name, value: value))
            }
        }
        self.init(url: http.url, status: status, headerFields: fields)
    }
}
