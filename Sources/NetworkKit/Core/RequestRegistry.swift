/// A started request, whatever its output type: what the service needs to find and cancel it.
protocol RunningRequest: AnyObject, Sendable {
    var id: RequestID { get }
    func cancel()
}

extension Request: RunningRequest {}

/// The service's map of the requests it holds, from `start` until they land.
final class RequestRegistry: Sendable {
    private let requests = Protected<[RequestID: any RunningRequest]>([:])

    func insert(_ request: any RunningRequest) {
        requests.withLock { $0[request.id] = request }
    }

    func remove(_ id: RequestID) {
        requests.withLock { _ = $0.removeValue(forKey: id) }
    }

    func request(for id: RequestID) -> (any RunningRequest)? {
        requests.withLock { $0[id] }
    }

    var all: [any RunningRequest] {
        requests.withLock { Array($0.values) }
    }

    var count: Int {
        requests.withLock { $0.count }
    }
}
