import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests. A service owns exactly one `URLSession`, maps each of its tasks to the
/// `Request` it serves, and holds every request from `start` until its handlers have run.
///
/// Use `Service.shared`, or make one per backend with its own configuration.
public final class Service: Sendable {
    /// The service most apps need: default session, no base URL, callbacks on the main queue.
    public static let shared = Service()

    /// The one URLSession behind this service.
    public let session: URLSession
    let registry: TaskRegistry
    /// Runs the session's delegate callbacks; it targets the parsing queue, so the hop from a
    /// finished transfer to its parser is cheap. Held here: `OperationQueue` keeps it unowned.
    private let delegateDispatchQueue: DispatchQueue
    private let settings: Protected<ServiceConfiguration>

    /// Creates a service. `sessionConfiguration` is copied into the service's own URLSession.
    public init(
        configuration: ServiceConfiguration = ServiceConfiguration(),
        sessionConfiguration: URLSessionConfiguration = .default
    ) {
        let registry = TaskRegistry()
        let delegateQueue = OperationQueue()
        delegateQueue.name = "NetworkKit.session-delegate"
        delegateQueue.maxConcurrentOperationCount = 1
        delegateDispatchQueue = DispatchQueue(label: "NetworkKit.session-delegate", target: ParsingQueue.shared)
        delegateQueue.underlyingQueue = delegateDispatchQueue
        self.registry = registry
        settings = Protected(configuration)
        session = URLSession(configuration: sessionConfiguration,
                             delegate: SessionDelegate(registry: registry),
                             delegateQueue: delegateQueue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The configuration new requests are sent with; set it to switch servers at runtime.
    public var configuration: ServiceConfiguration {
        get { settings.snapshot }
        set { settings.withLock { $0 = newValue } }
    }

    /// Changes part of the configuration in one step: `service.configure { $0.baseURL = staging }`.
    public func configure(_ change: (inout ServiceConfiguration) -> Void) {
        settings.withLock(change)
    }

    /// Sends `request`. Its handlers run on the callback queue when it lands. Starting a request
    /// that was started before does nothing; one cancelled before start lands cancelled.
    public func start<Output>(_ request: Request<Output>) {
        let configuration = settings.snapshot
        let spec = request.spec.snapshot
        let registry = self.registry
        let id = request.id
        let landing = Landing(
            callbackQueue: configuration.callbackQueue,
            maxDecompressedBytes: configuration.maxDecompressedBytes,
            acceptableStatusCodes: spec.acceptableStatusCodes,
            forget: { registry.remove(id) }
        )
        switch request.begin(landing) {
        case .alreadyStarted:
            return
        case .cancelledBeforeStart:
            request.finish(.failure(.cancelled))
            return
        case .started:
            break
        }
        let urlRequest: URLRequest
        do {
            urlRequest = try URLRequestBuilder.build(spec, configuration: configuration)
        } catch {
            request.finish(.failure(NetworkError.wrap(error)))
            return
        }
        let task: URLSessionDataTask
        if request.wantsTransferEvents {
            task = session.dataTask(with: urlRequest)
        } else {
            task = session.dataTask(with: urlRequest) { body, response, error in
                request.transportDidComplete(response: response, body: body ?? Data(), error: error)
            }
        }
        if request.attach(task, register: { registry.insert(request, taskID: task.taskIdentifier) }) {
            task.resume()
        } else {
            task.cancel()
        }
    }

    /// Cancels the running request with this identity; returns false when there is none.
    @discardableResult
    public func cancel(id: RequestID) -> Bool {
        guard let client = registry.client(for: id) else { return false }
        client.cancel()
        return true
    }

    /// Cancels every running request of this service.
    public func cancelAll() {
        for client in registry.all { client.cancel() }
    }

    /// How many requests are between start and landing.
    public var activeRequestCount: Int {
        registry.count
    }
}
