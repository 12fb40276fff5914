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
