import Foundation
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// Streams at their edges, end to end on both transports: the headers each connection sends as
/// the interceptors see them, the cap on failed connects, limits, and time.
@Suite("Streaming at the edges")
struct StreamingEdgeTests {
    typealias Support = StreamingTests

    @Test("each connection sends Accept, Cache-Control and the Last-Event-ID, which the interceptors see",
          arguments: TransportKind.allCases)
    func headersOfEachConnection(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/events?count=4&close_after=2&stream=\(Support.name("hdr", transport))",
                                    reconnection: Support.quick)
        let seen = Recorder<[String]>()
        request.interceptors = [HeaderRecorder(names: ["Accept", "Cache-Control", "Last-Event-ID"], recorder: seen)]
        let summary = try await fixture.service.completion(of: request).get()
        #expect(summary.itemCount == 4)
        // Two streams of two events, then the 204.
        #expect(seen.all == [["text/event-stream", "no-cache", "-"],
                             ["text/event-stream", "no-cache", "2"],
                             ["text/event-stream", "no-cache", "4"]])
    }

    @Test("a server that cannot be reached fails the stream after the cap on failed connects",
          arguments: TransportKind.allCases)
    func failedConnectCap(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/events"))
        let request = StreamRequest(url: url, reconnection: Support.quick)
        let result = await fixture.service.completion(of: request)
        guard case .transport(let error) = result.failure else {
            Issue.record("expected a transport failure, got \(result)")
            return
        }
        #expect(error.code == .cannotConnectToHost, "\(error)")
        #expect(request.attemptCount == Support.quick.maxFailedConnects)
        #expect(fixture.service.activeRequestCount == 0)
    }

    @Test("a stream has no total-time limit: it outlives the service's", arguments: TransportKind.allCases)
    func noTimeLimit(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.timeLimit = .milliseconds(500) }
        let request = StreamRequest(path: "/events?count=3&interval=400&done=close&stream=\(Support.name("long", transport))",
                                    reconnection: .never)
        let summary = try await fixture.service.completion(of: request).get()
        #expect(summary.itemCount == 3)
        // A request's own limit still holds.
        let limited = StreamRequest(path: "/events?count=3&interval=400&done=close&stream=\(Support.name("cut", transport))",
                                    reconnection: .never)
        limited.timeLimit = .milliseconds(500)
        let cut = await fixture.service.completion(of: limited)
        guard case .timeLimitExceeded = cut.failure else {
            Issue.record("expected the request's time limit, got \(cut)")
            return
        }
    }

    @Test("JSON text sequences arrive record by record", arguments: TransportKind.allCases)
    func jsonTextSequence(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let request = StreamRequest(path: "/jsonseq?count=3&interval=5", parser: JSONSequenceParser())
        var ids: [Int64] = []
        for try await record in fixture.service.stream(request) {
            ids.append(try #require(record["data"]?["id"]?.intValue))
        }
        #expect(ids == [1, 2, 3])
    }

    @Test("a line past the limit and a body past maxResponseBytes end the stream with clear errors",
          arguments: TransportKind.allCases)
    func limits(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let long = StreamRequest(path: "/events/many?count=2&size=5000", reconnection: Support.quick,
                                 maxLineLength: 1_000)
        let tooLong = await fixture.service.completion(of: long)
        guard case .parse(let error) = tooLong.failure else {
            Issue.record("expected a parse error, got \(tooLong)")
            return
        }
        #expect(error.kind == .limit)
        #expect(error.reason.contains("1000"), "\(error.reason)")
        #expect(long.attemptCount == 1)   // a limit stops for good

        let large = StreamRequest(path: "/jsonl/bytes?mb=4", parser: LineParser())
        large.maxResponseBytes = 1 << 20
        let tooLarge = await fixture.service.completion(of: large)
        guard case .responseTooLarge(let limit) = tooLarge.failure else {
            Issue.record("expected responseTooLarge, got \(tooLarge)")
            return
        }
        #expect(limit == 1 << 20)
    }
}

/// Records the values of `names` ("-" for a missing one) on each request it adapts.
struct HeaderRecorder: RequestInterceptor {
    let names: [String]
    let recorder: Recorder<[String]>

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        recorder.append(names.map { HTTPField.Name($0).flatMap { request.head.headerFields[$0] } ?? "-" })
        return request
    }
}

/// A loopback port that refuses connections and that no other test can take meanwhile: a
/// socket bound to it that does not listen.
final class RefusingPort {
    let port: Int
    private let socket: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Glibc.bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard socket >= 0, bound else {
            if socket >= 0 { Glibc.close(socket) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.socket = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Glibc.close(socket)
    }
}
