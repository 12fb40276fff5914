import Foundation

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
