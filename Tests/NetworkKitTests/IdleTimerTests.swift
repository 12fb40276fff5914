@testable import NetworkKit
@testable import NetworkKitNIO
import NIOCore
import Testing

/// The NIO transport's idle timer on its own (a pure unit: no transfer, no clock but the one given).
@Suite("NIO idle timer") struct IdleTimerTests {
    @Test func firesOnceWhenIdleForItsTimeout() {
        let timer = IdleTimer(timeout: 1)
        let fired = Protected(0)
        timer.onFire { fired.withLock { $0 += 1 } }
        timer.check(now: .now())
        #expect(fired.snapshot == 0)
        timer.check(now: .now() + .seconds(2))
        timer.check(now: .now() + .seconds(3))
        #expect(fired.snapshot == 1)
        #expect(timer.didFire)
    }

    /// The transport sets the action after the task starts; a timer that fired in between
    /// must still cancel the transfer.
    @Test func anActionSetAfterTheTimerFiredRunsAtOnce() {
        let timer = IdleTimer(timeout: 1)
        timer.check(now: .now() + .seconds(2))
        let fired = Protected(0)
        timer.onFire { fired.withLock { $0 += 1 } }
        #expect(fired.snapshot == 1)
    }

    @Test func noTimeoutNeverFires() {
        let timer = IdleTimer(timeout: 0)
        timer.onFire { Issue.record("a timer without a timeout fired") }
        timer.check(now: .now() + .hours(1))
        #expect(!timer.didFire)
    }
}
