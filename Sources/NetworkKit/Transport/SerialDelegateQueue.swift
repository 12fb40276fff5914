import Foundation

#if canImport(FoundationNetworking)
/// The session's delegate queue: runs each block FoundationNetworking hands it straight on one
/// serial dispatch queue, in order.
///
/// FoundationNetworking delivers every delegate event (head, each body chunk, completion) with
/// `addOperation(_:)`, and `OperationQueue` wraps each in a `BlockOperation` and schedules it
/// under its locks on the session's serial work queue, the one every transfer shares. A
/// streaming transfer has three events where a completion-handler task has one, and at 16
/// requests in flight that bookkeeping was the difference to bare URLSession. Operations added
/// as such still go through `OperationQueue`, onto the same serial queue. FoundationNetworking
/// adds only blocks (swift-corelibs-foundation, `URLSessionTask.swift`, `NativeProtocol.swift`),
/// so every event keeps its order. Linux only: Apple's URLSession schedules its own way.
final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    // @unchecked: no state of its own besides `target`, a constant; OperationQueue guards its own.
    private let target: DispatchQueue

    init(name: String, target: DispatchQueue) {
        self.target = target
        super.init()
        self.name = name
        maxConcurrentOperationCount = 1
        underlyingQueue = target
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        target.async(execute: block)
    }
}
#endif
