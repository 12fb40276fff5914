import FixtureServer
import Foundation
import NetworkKit
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Nothing outlives its use: once a request has finished and the caller lets go, the request, its
/// service, the transport and the URL session are freed (a leak here grows with every request).
@Suite("Objects are freed")
struct LeakTests {
    /// What the test holds weakly.
    final class Watched: @unchecked Sendable {
        // `@unchecked Sendable`: written once inside the test's scope, read after it, by one task.
        weak var request: AnyObject?
        /// Requests cancelled by a state handler as they start: until 23 November 2026 one in
        /// about ten stayed in its service's registry for good (it was entered there after the
        /// handler's cancel had already removed it), so the test cancels many.
        var cancelled: [Weak] = []
        weak var service: Service?
        weak var transport: AnyObject?
        weak var session: URLSession?

        /// What is still alive.
        var alive: [String] {
            let cancelled = cancelled.filter { $0.object != nil }.count
            let objects: [(String, AnyObject?)] = [("a finished request", request), ("the service", service),
                                                   ("the transport", transport), ("the URL session", session)]
            return objects.compactMap { $0.1 == nil ? nil : $0.0 } + (cancelled == 0 ? [] : ["cancelled requests: \(cancelled)"])
        }
    }

    @Test("finished and cancelled requests, the service, its transport and session are freed",
          arguments: TransportKind.allCases)
    func freed(transport kind: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let watched = Watched()
        try await use(kind, server: server, watched: watched)
        // Freed once the callback queue has run the last handler and the transport has let go of
        // its last transfer: give that up to five seconds.
        for _ in 0..<100 where !watched.alive.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(watched.alive.isEmpty, "still alive: \(watched.alive)")
    }

    /// A weak reference, to keep many.
    struct Weak {
        weak var object: AnyObject?
    }

    private func use(_ kind: TransportKind, server: FixtureServer, watched: Watched) async throws {
        let service = kind.service(ServiceConfiguration(baseURL: server.baseURL, timeout: .seconds(15)))
        let request = Request(path: "/json/small", parser: JSONParser())
        _ = try await service.send(request)
        for _ in 0..<20 {
            let slow = Request(path: "/slow?ms=30000", parser: JSONParser())
            await withCheckedContinuation { continuation in
                slow.addCompletionHandler { _, _ in continuation.resume() }
                slow.addStateHandler { request, state in
                    if state == .running { request.cancel() }
                }
                service.start(slow)
            }
            #expect(slow.state == .cancelled)
            watched.cancelled.append(Weak(object: slow))
        }
        watched.request = request
        watched.service = service
        watched.transport = service.transport as AnyObject
        watched.session = (service.transport as? URLSessionTransport)?.session
    }
}
