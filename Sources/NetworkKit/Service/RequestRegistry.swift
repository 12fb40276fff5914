/// The service's map of the requests it holds, from `start` until they finish.
final class RequestRegistry: Sendable {
    private let requests = Protected<[RequestID: AnyRequest]>([:])

    func insert(_ request: AnyRequest) {
        requests.withLock { $0[request.id] = request }
    }

    func remove(_ id: RequestID) {
        requests.withLock { _ = $0.removeValue(forKey: id) }
    }

    func request(for id: RequestID) -> AnyRequest? {
        requests.withLock { $0[id] }
    }

    var all: [AnyRequest] {
        requests.withLock { Array($0.values) }
    }

    var count: Int {
        requests.withLock { $0.count }
    }
}
