import Foundation

/// Where every handler an app adds runs: on the main actor, reached through the main dispatch
/// queue, which runs what was queued first first. The kit queues each handler call here, never
/// calls one on the thread that decided it, and so calls handlers in the order it decided them.
enum MainActorQueue {
    /// Queues `work` to run on the main actor after everything queued before it.
    static func async(_ work: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async { MainActor.assumeIsolated(work) }
    }
}
