/// The service's map from URLSession task identifiers to the requests they serve.
/// A request is in it from the moment its task exists until it lands.
final class TaskRegistry: Sendable {
    private struct Maps {
        var clients: [Int: any TransportClient] = [:]
        var taskIDs: [RequestID: Int] = [:]
    }

    private let maps = Protected(Maps())

    func insert(_ client: any TransportClient, taskID: Int) {
        maps.withLock {
            $0.clients[taskID] = client
            $0.taskIDs[client.id] = taskID
        }
    }

    func client(forTask taskID: Int) -> (any TransportClient)? {
        maps.withLock { $0.clients[taskID] }
    }

    func client(for id: RequestID) -> (any TransportClient)? {
        maps.withLock { maps in maps.taskIDs[id].flatMap { maps.clients[$0] } }
    }

    func remove(_ id: RequestID) {
        maps.withLock { maps in
            if let taskID = maps.taskIDs.removeValue(forKey: id) { maps.clients[taskID] = nil }
        }
    }

    var all: [any TransportClient] {
        maps.withLock { Array($0.clients.values) }
    }

    var count: Int {
        maps.withLock { $0.clients.count }
    }
}
