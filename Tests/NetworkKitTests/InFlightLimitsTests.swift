import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// `InFlightLimits` as tables: which requests proceed, wait, and are let in as others leave.
@Suite("In-flight limits")
struct InFlightLimitsTests {
    private let ids = (0..<12).map { _ in RequestID.next() }

    @Test("one at a time: the waiting go by priority, then by arrival")
    func byPriorityThenArrival() {
        var limits = InFlightLimits()
        let one = InFlightLimits.Limits(total: 1, perHost: nil)
        #expect(limits.enter(ids[0], host: "a", priority: .normal, limits: one) == .proceed)
        let queued: [RequestPriority] = [.low, .high, .normal, .veryHigh, .high, .veryLow]
        for (offset, priority) in queued.enumerated() {
            #expect(limits.enter(ids[offset + 1], host: "a", priority: priority, limits: one) == .wait)
        }
        var order: [RequestID] = []
        for _ in queued.indices {
            let admitted = limits.leave(host: "a")
            #expect(admitted.count == 1)
            order += admitted
        }
        // veryHigh (4), high (2, then 5), normal (3), low (1), veryLow (6).
        #expect(order == [ids[4], ids[2], ids[5], ids[3], ids[1], ids[6]])
        #expect(limits.leave(host: "a").isEmpty)
        #expect(limits.running == 0 && limits.waitingCount == 0)
    }

    @Test("per host: a full host does not hold up another")
    func perHost() {
        var limits = InFlightLimits()
        let perHost = InFlightLimits.Limits(total: nil, perHost: 1)
        #expect(limits.enter(ids[0], host: "a", priority: .normal, limits: perHost) == .proceed)
        #expect(limits.enter(ids[1], host: "a", priority: .veryHigh, limits: perHost) == .wait)
        #expect(limits.enter(ids[2], host: "b", priority: .veryLow, limits: perHost) == .proceed)
        #expect(limits.leave(host: "b").isEmpty)
        #expect(limits.leave(host: "a") == [ids[1]])
        #expect(limits.runningPerHost == ["a": 1])
    }

    @Test("both limits: a slot freed for the service goes to a host with room")
    func totalAndPerHost() {
        var limits = InFlightLimits()
        let both = InFlightLimits.Limits(total: 2, perHost: 1)
        #expect(limits.enter(ids[0], host: "a", priority: .normal, limits: both) == .proceed)
        #expect(limits.enter(ids[1], host: "b", priority: .normal, limits: both) == .proceed)
        #expect(limits.enter(ids[2], host: "a", priority: .veryHigh, limits: both) == .wait)
        #expect(limits.enter(ids[3], host: "c", priority: .low, limits: both) == .wait)
        // b leaves: a is still full, so c goes though it matters less.
        #expect(limits.leave(host: "b") == [ids[3]])
        #expect(limits.leave(host: "a") == [ids[2]])
    }

    @Test("a withdrawn request is never let in; unknown ones are not withdrawn")
    func withdraw() {
        var limits = InFlightLimits()
        let one = InFlightLimits.Limits(total: 1, perHost: nil)
        #expect(limits.enter(ids[0], host: "a", priority: .normal, limits: one) == .proceed)
        #expect(limits.enter(ids[1], host: "a", priority: .high, limits: one) == .wait)
        #expect(limits.enter(ids[2], host: "a", priority: .low, limits: one) == .wait)
        let withdrawn = [limits.withdraw(ids[1]), limits.withdraw(ids[1]), limits.withdraw(ids[0])]
        #expect(withdrawn == [true, false, false])
        #expect(limits.leave(host: "a") == [ids[2]])
    }

    @Test("a limit of zero or less lets one through at a time rather than none")
    func zeroMeansOne() {
        var limits = InFlightLimits()
        let zero = InFlightLimits.Limits(total: 0, perHost: -3)
        #expect(limits.enter(ids[0], host: "a", priority: .normal, limits: zero) == .proceed)
        #expect(limits.enter(ids[1], host: "a", priority: .normal, limits: zero) == .wait)
        #expect(limits.leave(host: "a") == [ids[1]])
    }

    @Test("priority names: the cases' names and their hyphenated forms")
    func priorityNames() {
        #expect(RequestPriority(named: "veryHigh") == .veryHigh)
        #expect(RequestPriority(named: "very-low") == .veryLow)
        #expect(RequestPriority(named: "HIGH") == .high)
        #expect(RequestPriority(named: "urgent") == nil)
        #expect(RequestPriority.allCases.map(\.urlSessionPriority) == [0, 0.25, 0.5, 0.75, 1])
        #expect(RequestPriority.normal.urlSessionPriority == URLSessionTask.defaultPriority)
        #expect(RequestPriority.high.urlSessionPriority == URLSessionTask.highPriority)
    }
}
