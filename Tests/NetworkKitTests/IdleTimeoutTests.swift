import Foundation
@testable import NetworkKit
import NetworkKitTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which `timeoutInterval` is an idle timeout, and that the idle watch holds only transfers
/// that have one.
@Suite("Idle timeout")
struct IdleTimeoutTests {
    @Test(arguments: [
        (TimeInterval(60), Duration?.some(.seconds(60))), (0.5, .milliseconds(500)),
        (0, nil), (-1, nil), (.nan, nil), (.infinity, nil), (1e9, nil),
    ])
    func anIntervalIsATimeoutWhenPositiveAndFinite(seconds: TimeInterval, duration: Duration?) {
        var request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        request.timeoutInterval = seconds
        #expect(IdleTimeout(request)?.duration == duration)
    }

    @Test func aSilenceReachesTheTimeoutFromItsLengthOn() throws {
        let timeout = try #require(IdleTimeout(seconds: 2))
        #expect(!timeout.isReached(by: .seconds(1)))
        #expect(timeout.isReached(by: .seconds(2)))
        #expect(timeout.isReached(by: nil))
        #expect(timeout.error.code == .timedOut)
    }

    /// Seen from the stub's answer, which plays after the transfer was added to the watch.
    @Test(arguments: [(TimeInterval.infinity, 0), (30, 1)])
    func onlyATransferWithAnIdleTimeoutIsWatched(timeout: TimeInterval, watchedWhileRunning: Int) async throws {
        let stub = StubTransport()
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                              transport: stub)
        let watched = Protected<Int?>(nil)
        stub.answer(.any) { _ in
            watched.withLock { $0 = service.idleWatch.watchedCount }
            return .json("{}")
        }
        let request = Request(path: "/x")
        request.timeout = timeout
        _ = try await service.send(request)
        #expect(watched.snapshot == watchedWhileRunning)
        #expect(service.idleWatch.watchedCount == 0)
    }
}
