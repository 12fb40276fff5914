import Dispatch

/// Runs a service's request pipelines on its pipeline queue: a serial queue that targets
/// `ParsingQueue.shared`, so every step of a pipeline, parsing included, runs on the parsing
/// queue and never on the main actor. The default transport calls back on the same queue,
/// so a finished transfer resumes its pipeline without waking another thread.
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
