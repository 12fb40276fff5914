import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import ServiceLifecycle
import Logging
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A service shut down as a server stops its parts: nothing new is sent, the requests in flight
/// have the grace period, streams end, WebSockets close with 1001, the transport goes last.
@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test("a request in flight finishes in the grace period; a new one fails at once", arguments: TransportKind.allCases)
    func inFlightFinishesAndNewOnesFail(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let held = Request(path: "/count/shutdown-held-\(transport)", parser: JSONParser())
        held.interceptors = [gate]
        let inFlight = Task { await fixture.service.result(of: held) }
        await gate.arrivals(1)

        let shutdown = Task { await fixture.service.shutdown(gracePeriod: .seconds(3_600)) }
        while !fixture.service.isShutDown { await Task.yield() }
        let refused = await fixture.service.result(of: Request(path: "/count/shutdown-refused-\(transport)", parser: JSONParser()))
        guard case .failure(.serviceShutDown) = refused else { Issue.record("got \(refused)"); return }
        #expect(fixture.server.hits.count("shutdown-refused-\(transport)") == 0)

        gate.open()
        let finished = await inFlight.value
        #expect(finished.success != nil, "\(finished)")
        await shutdown.value
        #expect(fixture.service.activeRequestCount == 0)
        // Shutting down again returns at once.
        await fixture.service.shutdown(gracePeriod: .seconds(3_600))
    }

    @Test("a request still running when the grace period runs out ends with serviceShutDown")
    func theGracePeriodRunsOut() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.clock = InstantClock()   // the grace period passes at once
        let service = Service(configuration: configuration)
        let gate = Gate()
        defer { gate.open() }
        let held = Request(path: "/count/shutdown-late", parser: JSONParser())
        held.interceptors = [gate]
        let completions = Recorder<Result<JSON, NetworkError>>()
        await withCheckedContinuation { continuation in
            held.addCompletionHandler { _, result in
                completions.append(result)
                continuation.resume()
            }
            service.start(held)
            Task {
                await gate.arrivals(1)
                await service.shutdown(gracePeriod: .seconds(30))
            }
        }
        guard case .failure(.serviceShutDown)? = completions.all.first else { Issue.record("got \(completions.all)"); return }
        #expect(completions.all.count == 1 && service.activeRequestCount == 0)
    }

    @Test("streams end and WebSockets close with 1001; the transport is shut down")
    func streamsEndAndSocketsClose() async throws {
        let server = try await FixtureServer.start()
        let sockets = try await WebSocketServer.start()
        defer { server.stop(); sockets.stop() }
        let transport = NIOTransport()
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL), transport: transport)

        let socket = try await service.send(.webSocket(url: sockets.url("/echo")))
        try await socket.send(.text("before"))
        var messages = socket.messages.makeAsyncIterator()
        #expect(try await messages.next() == .text("before"))

        let (started, first) = AsyncStream<Void>.makeStream()
        let stream = Task { () -> (items: Int, error: NetworkError?) in
            var items = 0
            do throws(NetworkError) {
                for try await _ in service.stream(StreamRequest(path: "/events/clock?count=100000&interval=20")) {
                    items += 1
                    if items == 1 { first.yield() }
                }
                return (items, nil)
            } catch {
                return (items, error)
            }
        }
        var firsts = started.makeAsyncIterator()
        await firsts.next()

        await service.shutdown(gracePeriod: .seconds(3_600))
        let ended = await stream.value
        guard case .serviceShutDown? = ended.error else { Issue.record("the stream ended with \(ended)"); return }
        #expect(try await messages.next() == nil)   // the app's close (1001) ended its messages
        #expect(await sockets.closeCodes(atLeast: 1) == [1001])
        // The transport starts no transfer any more.
        let refused = CompletionRecorder()
        _ = transport.start(try OutgoingRequest(url: server.baseURL), events: refused)
        guard case .cancelled? = await refused.completion() else { Issue.record("the shut-down transport sent"); return }
    }

    @Test("in a ServiceGroup, the group's graceful shutdown shuts the service down")
    func aServiceGroupShutsItDown() async throws {
        let fixture = try await Fixture.start(transport: .nio)
        defer { fixture.server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let held = Request(path: "/count/shutdown-group", parser: JSONParser())
        held.interceptors = [gate]
        let inFlight = Task { await fixture.service.result(of: held) }
        await gate.arrivals(1)

        let group = ServiceGroup(services: [fixture.service], logger: Logger(label: "tests.shutdown"))
        let running = Task { try await group.run() }
        await group.triggerGracefulShutdown()
        while !fixture.service.isShutDown { await Task.yield() }
        gate.open()
        #expect(await inFlight.value.success != nil)
        try await running.value
        #expect(fixture.service.activeRequestCount == 0)
    }
}

/// Records one transfer's completion, for a transport started directly.
final class CompletionRecorder: TransportEvents {
    private let state = Protected<(done: NetworkError??, waiting: CheckedContinuation<NetworkError?, Never>?)>((nil, nil))

    /// The completion's failure (nil for a whole response), once it came.
    func completion() async -> NetworkError? {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> NetworkError?? in
                if let done = state.done { return done }
                state.waiting = continuation
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    func transportDidSend(bytes: Int64, of total: Int64?) {}
    func transportDidReceive(head: ResponseHead) {}
    func transportDidReceive(chunk: Data) {}
    func transportDidComplete(failure: NetworkError?) {
        let waiting = state.withLock { state -> CheckedContinuation<NetworkError?, Never>? in
            state.done = .some(failure)
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: failure)
    }
}
