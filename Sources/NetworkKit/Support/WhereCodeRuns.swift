import Foundation
import Dispatch

// The queues and the executor the kit's own code runs on, in one file: the main actor's queue for
// handlers, the shared parsing queue, a service's pipeline executor, and URLSession's delegate
// queue on Linux. Where code runs, in one sentence (ARCHITECTURE.md and WhereCodeRuns.md say the
// same):
//
// A request's pipeline runs off the main actor, with every interceptor and lightweight parse of a
// small body in it: in the awaiting task for `send`, in a task of the service's for `start` (on the
// service's pipeline queue where Swift has task executors, Linux and macOS 15, iOS 18 and later; on
// Swift's global executor before them); any other parse runs on the shared parsing queue, a
// transfer's events (and the monitors' calls for them) come on the transport's own context, and
// handlers run on the main actor.


/// Where every handler an app adds runs: on the main actor, reached through the main dispatch
/// queue, which runs what was queued first first. The kit queues each handler call here, never
/// calls one on the thread that decided it, and so calls handlers in the order it decided them.
enum MainActorQueue {
    /// Queues `work` to run on the main actor after everything queued before it.
    static func async(_ work: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated(work) }
    }
}

/// The shared background queue parsers run on, so parsing never blocks the main actor.
///
/// A parser that declares itself lightweight (`ResponseParser.isLightweight`: data, string, JSON,
/// models) parsing a body of at most `inlineBodyLimit` bytes runs where the pipeline runs, saving
/// a thread hop per request; every other parse is dispatched to `shared`. Each service's pipeline
/// queue (and so URLSession's delegate queue) targets it too.
package enum ParsingQueue {
    /// The largest body a lightweight parser parses where the pipeline runs (64 KB).
    package static let inlineBodyLimit = 64 * 1024

    /// A concurrent queue: responses of different requests parse side by side.
    package static let shared = DispatchQueue(
        label: "NetworkKit.parsing", qos: .userInitiated, attributes: .concurrent
    )
}

/// Runs the pipelines of the requests a service starts (`Service.start`) on its pipeline queue, a
/// serial queue that targets `ParsingQueue.shared`, where Swift has task executors (Linux; macOS 15,
/// iOS 18 and later; on Swift's global executor before them). The default transport delivers its
/// events on the same queue, so a finished transfer resumes such a pipeline without waking another
/// thread. A pipeline `Service.send` runs stays in the awaiting task.
final class PipelineExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// A task running `operation` on this executor where the platform has task executors
    /// (Swift 6 on Linux; macOS 15, iOS 18 and later), on the global pool before that.
    func task(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: self, operation: operation)
        }
        return Task(operation: operation)
    }
}

#if canImport(FoundationNetworking)
/// The session's delegate queue on Linux: runs each block FoundationNetworking hands it straight
/// on its target, a serial dispatch queue, in order.
///
/// FoundationNetworking delivers every delegate event (head, each body chunk, completion) from
/// the session's work queue with `addOperation(_:)`, and a plain `OperationQueue` wraps each in a
/// `BlockOperation` and schedules it under its locks. A streaming transfer has three events where
/// a completion-handler task has one, so at 16 requests in flight that bookkeeping is most of what
/// the kit would add to a bare URLSession (BENCHMARKS.md). FoundationNetworking adds only blocks
/// (swift-corelibs-foundation, `URLSessionTask.swift`, `NativeProtocol.swift`), so every event
/// keeps its order; an `Operation` added as such still goes through `OperationQueue`, onto the
/// same target. Apple's URLSession schedules its own way, so other platforms keep a plain
/// `OperationQueue`.
final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: no state of its own besides `target`, a constant; OperationQueue guards its own.
    private let target: DispatchQueue

    init(target: DispatchQueue) {
        self.target = target
        super.init()
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        target.async(execute: block)
    }
}
#endif
