import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

/// Size and time limits against servers that send too much or too slowly.
@Suite("Size and time limits")
struct LimitTests {
    @Test("a Content-Length over the limit fails before the body is read", arguments: TransportKind.allCases)
    func announcedLength(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/bytes?count=2000000")
        request.maxResponseBytes = 1_000_000
        let result = await fixture.service.completion(of: request)
        guard case .responseTooLarge(let limit) = result.failure else {
            Issue.record("expected responseTooLarge, got \(result)")
            return
        }
        #expect(limit == 1_000_000)
        #expect((request.metrics?.bytesReceived ?? 0) < 1_000_000)
    }

    @Test("an endless chunked body is cut at the limit", arguments: TransportKind.allCases)
    func endlessBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.maxResponseBytes = 4 * 1024 * 1024 }
        let request = Request(path: "/endless", parser: JSONParser())
        let measured = await fixture.finishMeasured(request)
        guard case .responseTooLarge(let limit) = measured.result.failure else {
            Issue.record("expected responseTooLarge, got \(measured.result)")
            return
        }
        // An endless body ends only at a limit: this error says it was the size limit, not the
        // time limit (120 s), so no clock is read.
        #expect(limit == 4 * 1024 * 1024)
        if let growth = measured.growth { #expect(growth < runawayMemoryGrowth, "RSS grew by \(growth) bytes") }
        #expect(request.state == .finished)
    }

    @Test("a bomb is cut by what it inflates to, not what crosses the wire", arguments: TransportKind.allCases, ["gzip", "br", "zstd"])
    func bomb(transport: TransportKind, coding: String) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        // The NIO case inflates a 512 MiB bomb, so that stopping at the limit stays under
        // `runawayMemoryGrowth` while other suites allocate and inflating it all would not.
        // URLSession, which inflates it all, gets a smaller one.
        let (megabytes, bound) = transport == .nio ? (512, runawayMemoryGrowth) : (128, 64 << 20)
        let request = Request(path: "/bomb?mb=\(megabytes)&coding=\(coding)", parser: JSONParser())
        request.maxResponseBytes = 8 * 1024 * 1024
        let measured = await fixture.finishMeasured(request)
        guard case .responseTooLarge(let limit) = measured.result.failure else {
            Issue.record("expected responseTooLarge, got \(measured.result)")
            return
        }
        #expect(limit == 8 * 1024 * 1024)
        // The kit stops the transfer at the limit, but on Linux libcurl inflates a whole socket
        // read's worth (hundreds of MB for a bomb) inside one call and FoundationNetworking
        // queues every chunk for the delegate without back-pressure, so memory follows the bomb
        // until the cancellation reaches libcurl. Only a transport that leaves inflating to the kit
        // (the SwiftNIO one) bounds it; recorded here so it is seen, not hidden. How much
        // libcurl inflates before the cancellation reaches it depends on its socket reads, which
        // nothing promises: the growth is over the bound in most runs, not in all.
        if let growth = measured.growth {
            withKnownIssue("URLSession on Linux inflates before the kit can count", isIntermittent: true) {
                #expect(growth < bound, "RSS grew by \(growth) bytes")
            } when: {
                transport == .urlSession
            }
        }
    }

    @Test("the service's default limit is 64 MiB for in-memory requests")
    func defaultLimit() {
        #expect(ServiceConfiguration().maxResponseBytes == Int64(64 << 20))
        #expect(ServiceConfiguration().maxDownloadBytes == nil)
        #expect(ServiceConfiguration().timeLimit == .seconds(120))
    }

    @Test("a server dripping a byte every 300 ms trips the time limit, not the idle timeout", arguments: TransportKind.allCases)
    func dripTimeLimit(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(timeout: .seconds(15), transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/drip?bytes=100&ms=300")
        request.timeLimit = .milliseconds(800)
        // The drip lasts 30 s and never idles: the error says which limit ended the request (an
        // idle timeout would be a transport timeout), so no clock is read here.
        let result = await fixture.service.completion(of: request)
        guard case .timeLimitExceeded(let limit) = result.failure else {
            Issue.record("expected timeLimitExceeded, got \(result)")
            return
        }
        #expect(limit == .milliseconds(800))
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test("the time limit covers retries and the waits between them", arguments: TransportKind.allCases)
    func timeLimitAcrossRetries(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = Request(path: "/flaky/limit-retries?failures=100&status=503", parser: JSONParser())
        request.interceptors = [RetryPolicy(maxRetries: 50, backoff: Backoff(initial: .milliseconds(200), multiplier: 1, jitter: 0))]
        request.timeLimit = .milliseconds(700)
        let result = await fixture.service.result(of: request)
        guard case .timeLimitExceeded = result.failure else {
            Issue.record("expected timeLimitExceeded, got \(result)")
            return
        }
        #expect(request.attemptCount < 10)
    }
}
