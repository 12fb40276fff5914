/// The values of a batch's or a chain's requests, in the order the requests were added, each
/// reachable as the type its request produces.
///
/// ```swift
/// let values = try await service.send(batch)
/// let entrances = values[feedRequest]      // [Entrance]?, typed by the request
/// let first = values.all[0]                // any Sendable
/// ```
public struct RequestValues: Sendable {
    /// Every value, in the order the requests were added.
    public let all: [any Sendable]
    /// The identities of the requests the values came from, in the same order.
    public let requestIDs: [RequestID]

    init(all: [any Sendable], requestIDs: [RequestID]) {
        self.all = all
        self.requestIDs = requestIDs
    }

    /// How many values there are.
    public var count: Int { all.count }

    /// The value of `request`, as the type it produces; nil when `request` is not one of these
    /// requests.
    public subscript<Output>(request: Request<Output>) -> Output? {
        guard let index = requestIDs.firstIndex(of: request.id) else { return nil }
        return all[index] as? Output
    }
}

/// A request of any output type, as a batch or a chain starts, watches and cancels it.
struct RequestPart: Sendable {
    let id: RequestID
    /// Calls the observer with the request's result as soon as it exists (at once if it does).
    let observe: @Sendable (_ observer: @escaping @Sendable (Result<any Sendable, NetworkError>) -> Void) -> Void
    let start: @Sendable (Service) -> Void
    let cancel: @Sendable () -> Void

    init<Output>(_ request: Request<Output>) {
        id = request.id
        observe = { observer in request.observeResult { observer($0.map { $0 as any Sendable }) } }
        start = { service in service.start(request) }
        cancel = { request.cancel() }
    }
}
