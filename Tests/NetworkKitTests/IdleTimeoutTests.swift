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
    func anIntervalIsATimeoutWhenPositiveAndFinite(seconds: TimeInterval, duration: Duration?) throws {
        var request = URLRequest(url: URL(string: "https://api.example.com/x")!)
        request.timeoutInterval = seconds
        #expect(IdleTimeout(try OutgoingRequest(request))?.duration == duration)
    }

    @Test func aSilenceReachesTheTimeoutFromItsLengthOn() throws {
        let timeout = try #require(IdleTimeout(seconds: 2))
        #expect(!timeout.isReached(by: .seconds(1)))
        #expect(timeout.isReached(by: .seconds(2)))
        #expect(timeout.isReached(by: nil))
        #expect(timeout.error.code == .timedOut)
    }

    /// Seen from the stub's answer, which plays after the transfer was added to the watch.
    @Test(arguments: [(Duration.seconds(1_000_000_000), 0), (.seconds(30), 1)])
    func onlyATransferWithAnIdleTimeoutIsWatched(timeout: Duration, watchedWhileRunning: Int) async throws {
        let stub = StubTransport()
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                              transport: stub)
        let watched = Protected<Int?>(nil)
        stub.answer(nil, .any) { _ in
            watched.withLock { $0 = service.idleWatch.watchedCount }
            return .json("{}")
        }
        let request = Request(path: "/x")
        request.timeout = timeout
        _ = try await service.send(request)
        #expect(watched.snapshot == watchedWhileRunning)
        #expect(service.idleWatch.watchedCount == 0)
    }

    /// A timeout is a positive `Duration`, kept to the fraction of a second on every platform;
    /// zero or less fails the request before anything is sent.
    @Test func aTimeoutIsPositiveAndKeptAsGiven() async throws {
        let url = try #require(URL(string: "http://127.0.0.1/"))
        let options = RequestOptions(target: .url(url), method: .get, parameters: [:], headerFields: [:])
        let built = try OutgoingRequestBuilder.build(RequestDraft(options), options: options, timeout: .milliseconds(300))
        #expect(built.timeout == .milliseconds(300))
        #expect(IdleTimeout(built)?.duration == .milliseconds(300))

        let stub = StubTransport()
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                              transport: stub)
        stub.answer(nil, .any, with: .json("{}"))
        for timeout in [Duration.zero, .seconds(-1)] {
            let request = Request(path: "/x")
            request.timeout = timeout
            do {
                _ = try await service.send(request)
                Issue.record("a timeout of \(timeout) must fail the request")
            } catch {
                guard case .invalidRequest(let reason) = error else { Issue.record("got \(error)"); continue }
                #expect(reason.hasPrefix("the timeout must be positive"))
            }
        }
        #expect(stub.requests.isEmpty)
    }
}
