import FixtureOpenAPIClient
import FixtureServer
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NetworkKit
import NetworkKitNIO
import NetworkKitOpenAPIRuntime
import NetworkKitTesting
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession

/// A client made by swift-openapi-generator (the fixture's, `getSmall`) on the kit's
/// `ServiceClientTransport` against the same client on swift-openapi-runtime's own transports:
/// on NIO, against `AsyncHTTPClientTransport` sending through the kit's transport's `HTTPClient`
/// (so both use the same connections, as in `NIOBenchmarks`), each round on a new transport; on
/// URLSession, against swift-openapi-urlsession's `URLSessionTransport` on a session configured
/// as the kit configures its own. Sequential and at 16 in flight, interleaved; each call decodes
/// the body into the generated type. Then the same off the network, to split the cost per call:
/// the generated client on a transport that returns a canned answer (the runtime's own work), on
/// `ServiceClientTransport` over a service on `StubTransport`, and the kit's own request on that
/// service. `NK_BENCH_ONLY=openapi`.
struct OpenAPIBenchmarks {
    let server: FixtureServer
    let count = 2_000
    let rounds = 5

    func run() async throws {
        try await offNetwork()
        let serverURL = server.baseURL
        for inFlight in [1, 16] {
            let label = inFlight == 1 ? "sequential" : "\(inFlight) in flight"
            var nioRounds: [[Double]] = []
            for _ in 0..<rounds {
                let transport = NIOTransport()
                let kit = Client(serverURL: serverURL, transport: ServiceClientTransport(
                    service: Service(configuration: ServiceConfiguration(baseURL: serverURL), transport: transport)))
                let plain = Client(serverURL: serverURL,
                                   transport: AsyncHTTPClientTransport(configuration: .init(client: transport.client)))
                let service = Service(configuration: ServiceConfiguration(baseURL: serverURL), transport: transport)
                nioRounds.append(try await round(inFlight: inFlight, kit, plain, direct: service))
            }
            let session = URLSession(configuration: NetworkKit.URLSessionTransport.sessionConfiguration(.default))
            var urlSessionRounds: [[Double]] = []
            for _ in 0..<rounds {
                let kit = Client(serverURL: serverURL, transport: ServiceClientTransport(
                    service: Service(configuration: ServiceConfiguration(baseURL: serverURL))))
                let plain = Client(serverURL: serverURL,
                                   transport: OpenAPIURLSession.URLSessionTransport(configuration: .init(session: session)))
                urlSessionRounds.append(try await round(inFlight: inFlight, kit, plain, direct: nil))
            }
            let nio = medianRound(nioRounds), urlSession = medianRound(urlSessionRounds)
            let nioRatios = nioRounds.map { $0[0] / $0[1] }, urlSessionRatios = urlSessionRounds.map { $0[0] / $0[1] }
            print(String(format: "generated client getSmall x%d %@: ServiceClientTransport on NIO %.0f req/s, "
                         + "AsyncHTTPClientTransport %.0f req/s, ratio %.2f (rounds %.2f to %.2f); "
                         + "ServiceClientTransport on URLSession %.0f req/s, swift-openapi-urlsession %.0f req/s, "
                         + "ratio %.2f (rounds %.2f to %.2f)",
                         count, label, Double(count) / nio[0], Double(count) / nio[1], nio[0] / nio[1],
                         nioRatios.min() ?? 0, nioRatios.max() ?? 0,
                         Double(count) / urlSession[0], Double(count) / urlSession[1], urlSession[0] / urlSession[1],
                         urlSessionRatios.min() ?? 0, urlSessionRatios.max() ?? 0))
            print(String(format: "  (on NIO, the kit's own Request<Data> and JSONDecoder on the same service: %.0f req/s; "
                         + "ServiceClientTransport / it %.2f, it / AsyncHTTPClientTransport %.2f)",
                         Double(count) / nio[2], nio[0] / nio[2], nio[2] / nio[1]))
        }
    }

    /// Microseconds per sequential call off the network (medians of five rounds of 4,000 calls of
    /// each, in turn): the runtime alone, the adapter on a stubbed service, the kit's own request
    /// on it, decoding, and the adapter's `send` called directly (with the same decoding).
    func offNetwork() async throws {
        let body = Data(#"{"code":0,"message":"ok","content":{"id":42,"name":"small","tags":["a","b"],"score":9.5}}"#.utf8)
        let stub = StubTransport()
        stub.answer(.get, .path("/json/small"), with: StubResponse(status: 200, headerFields: [.contentType: "application/json"], body: body))
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL), transport: stub)
        let canned = Client(serverURL: server.baseURL, transport: CannedTransport(body: body))
        let adapter = Client(serverURL: server.baseURL, transport: ServiceClientTransport(service: service))
        let calls = 4_000
        let transport = ServiceClientTransport(service: service)
        let steps: [@Sendable () async throws -> Void] = [
            { _ = try await canned.getSmall().ok.body.json },
            { _ = try await adapter.getSmall().ok.body.json },
            {
                let data = try await service.send(Request(path: "/json/small", headerFields: [.accept: "application/json"]))
                _ = try JSONDecoder().decode(Components.Schemas.Small.self, from: data)
            },
            { _ = try JSONDecoder().decode(Components.Schemas.Small.self, from: body) },
            {
                // What the generated client asks of its transport, asked directly.
                let (_, answer) = try await transport.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/json/small",
                                                                       headerFields: [.accept: "application/json"]),
                                                           body: nil, baseURL: server.baseURL, operationID: "getSmall")
                let data = try await Data(collecting: answer ?? HTTPBody(), upTo: 1 << 20)
                _ = try JSONDecoder().decode(Components.Schemas.Small.self, from: data)
            },
        ]
        // Five rounds, each timing the four in turn; the median of each.
        var rounds: [[Double]] = []
        for _ in 0..<5 {
            var round: [Double] = []
            for step in steps { round.append(try await timed(count: calls, inFlight: 1, step) / Double(calls) * 1_000_000) }
            rounds.append(round)
        }
        let medians = (0..<steps.count).map { index in rounds.map { $0[index] }.sorted()[rounds.count / 2] }
        let (runtime, viaAdapter, kitOwn, decode, direct) = (medians[0], medians[1], medians[2], medians[3], medians[4])
        print(String(format: "off the network, µs per sequential call: the generated client on a canned transport %.1f, "
                     + "on ServiceClientTransport over StubTransport %.1f, the kit's own Request over it %.1f, "
                     + "JSONDecoder alone %.1f, ServiceClientTransport.send called directly %.1f; so the adapter's own "
                     + "share %.1f, and %.1f more when the generated client calls it",
                     runtime, viaAdapter, kitOwn, decode, direct, direct - kitOwn,
                     viaAdapter - direct - (runtime - decode)))
    }

    /// One warmed, interleaved round of `kit` against `plain`: each one's seconds, the kit's first.
    private func round(inFlight: Int, _ kit: Client, _ plain: Client, direct: Service?) async throws -> [Double] {
        var clients: [(Int, Int) async throws -> Double] = [
            { try await Self.batch(kit, count: $0, inFlight: $1) },
            { try await Self.batch(plain, count: $0, inFlight: $1) },
        ]
        if let direct {
            clients.append { count, inFlight in
                try await timed(count: count, inFlight: inFlight) {
                    let data = try await direct.send(Request(path: "/json/small", headerFields: [.accept: "application/json"]))
                    let small = try JSONDecoder().decode(Components.Schemas.Small.self, from: data)
                    guard small.content.id == 42 else { throw BenchError.wrongAnswer }
                }
            }
        }
        for client in clients { _ = try await client(200, inFlight) }
        return try await interleavedRound(count: count, inFlight: inFlight, clients)
    }

    /// `count` calls of `getSmall`, `inFlight` at a time; the seconds they took.
    private static func batch(_ client: Client, count: Int, inFlight: Int) async throws -> Double {
        try await timed(count: count, inFlight: inFlight) {
            let small = try await client.getSmall().ok.body.json
            guard small.content.id == 42 else { throw BenchError.wrongAnswer }
        }
    }
}

/// A transport that answers every call with the same JSON body, for the runtime's own cost.
private struct CannedTransport: ClientTransport {
    let body: Data

    func send(_ request: HTTPRequest, body _: HTTPBody?, baseURL _: URL, operationID _: String) async throws
        -> (HTTPResponse, HTTPBody?)
    {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), HTTPBody(body))
    }
}
