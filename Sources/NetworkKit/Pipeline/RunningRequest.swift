import Foundation

/// A request as its pipeline sees it while it runs (``AnyRequest`` is the one): what the
/// pipeline reports to it (the attempt, the head, progress, the finish), the work `cancel()`
/// stops, and what it asks of it (its parser chain, whether it was stopped). The pipeline and the
/// transfer name this, never the request type above them.
protocol RunningRequest: AnyObject, Sendable {
    /// The request's identity, as monitors and the service's registry know it.
    var id: RequestID { get }
    /// The request's parser chain, without its output type.
    var anyParser: any ResponseParser { get }
    /// The response head of the current attempt, once it arrived.
    var responseHead: ResponseHead? { get }
    /// True once the request was stopped or has finished.
    var isStopRequested: Bool { get }
    /// Keeps `work` so `cancel()` can stop it; stops it at once when the request was stopped or
    /// finished meanwhile.
    func attach(_ work: CancellableWork.Item)
    /// Commits the request to its outcome before an act that cannot be undone (a download's
    /// file moved into place): true when it still runs, and a stop after it changes nothing;
    /// false when it was stopped or finished, and the act must not happen.
    func commit() -> Bool
    /// Stops the request and finishes it with `error` (a limit, a time limit). The first finish wins.
    func stop(with error: NetworkError)
    /// Finishes the request with `result`: a stop wins over it, and an earlier finish over both.
    /// Returns what the request finished with and the metrics as kept.
    func finish(_ result: AnyResult, metrics: RequestMetrics) -> (result: AnyResult, metrics: RequestMetrics)
    /// Calls `observer` with the result as soon as it exists (right away if it does).
    func observeAnyResult(_ observer: @escaping @Sendable (AnyResult) -> Void)
    /// A new attempt is about to be sent: counts it and returns its number.
    func beginAttempt() -> Int
    /// The response head of the current attempt.
    func didReceive(head: ResponseHead)
    /// The business status the current attempt's parsers read, if any.
    func didRead(_ status: BusinessStatus?)
    /// A download's file will be `total` bytes long.
    func expectBody(total: Int64?)
    /// Download progress: `bytes` of the body have arrived.
    func didReceive(bodyBytes bytes: Int64)
    /// Upload progress.
    func didSend(bytes: Int64, of total: Int64?)
    /// The whole body arrived (`bytes` long): progress reaches 100 % before the finish.
    func didReceiveWholeBody(bytes: Int64)
    /// Queues `work` on the main actor while the request runs, so it runs before a finish
    /// decided after it; returns false (and queues nothing) when the request is not running.
    func queueWhileRunning(_ work: @escaping @MainActor @Sendable () -> Void) -> Bool
    /// Cache then network: hands `reply` to the request's handlers and returns once they ran.
    func deliverCached(_ reply: CachedReply) async
}

/// What `cancel()` stops while a request runs: its pipeline's task, the transfer of the current
/// attempt, and a wait (before a retry, or for a cache entry another request is fetching).
struct CancellableWork: Sendable {
    private var pipeline: Task<Void, Never>?
    private var transfer: (any TransportTask)?
    private var wait: Task<Void, any Error>?

    /// One of the three, as the pipeline hands it over.
    enum Item: Sendable {
        case pipeline(Task<Void, Never>)
        case transfer(any TransportTask)
        case wait(Task<Void, any Error>)

        /// Stops this item: kept alone, then cancelled with all of it, so `keep` is the one
        /// place that takes an item apart.
        func cancel() {
            var alone = CancellableWork()
            alone.keep(self)
            alone.cancel()
        }
    }

    /// Keeps `item` in its slot, in place of the one before of its kind (the last attempt's
    /// transfer, the last wait).
    mutating func keep(_ item: Item) {
        switch item {
        case .pipeline(let task): pipeline = task
        case .transfer(let task): transfer = task
        case .wait(let task): wait = task
        }
    }

    /// Stops all of it.
    func cancel() {
        transfer?.cancel()
        wait?.cancel()
        pipeline?.cancel()
    }
}
