import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a started request needs from its service to land.
struct Landing: Sendable {
    let callbackQueue: DispatchQueue
    let maxDecompressedBytes: Int
    let acceptableStatusCodes: Range<Int>
    /// Drops the request from the service's task map.
    let forget: @Sendable () -> Void
}

/// A request's mutable life, guarded by the request's `life` lock.
struct Lifecycle<Output: Sendable> {
    var state: RequestState = .ready
    var cancelRequested = false
    var landing: Landing?
    var task: URLSessionTask?
    var response: HTTPURLResponse?
    var body = Data()
    var result: Result<Output, NetworkError>?
    var completionHandlers: [Request<Output>.CompletionHandler] = []
    var progressHandlers: [Request<Output>.ProgressHandler] = []
    var stateHandlers: [Request<Output>.StateHandler] = []
    /// Internal observers (async `send`), called as soon as the result exists, off the callback queue.
    var resultObservers: [@Sendable (Result<Output, NetworkError>) -> Void] = []
    var downloadThrottle = ProgressThrottle()
    var uploadThrottle = ProgressThrottle()

    /// A progress value and who to tell about it, on which queue.
    typealias ProgressReport = (progress: TransferProgress, handlers: [Request<Output>.ProgressHandler], queue: DispatchQueue)

    /// What to report about the value `progress` makes of this lifecycle, when there are progress
    /// handlers, the request has somewhere to land, and `throttle` lets the value through. Call it
    /// under the lock.
    mutating func progressReport(
        throttle: WritableKeyPath<Self, ProgressThrottle>, _ progress: (Self) -> TransferProgress
    ) -> ProgressReport? {
        guard !progressHandlers.isEmpty, let landing else { return nil }
        let value = progress(self)
        guard self[keyPath: throttle].shouldReport(value) else { return nil }
        return (value, progressHandlers, landing.callbackQueue)
    }
}
