import Foundation
import FixtureServer
import HTTPTypes
@testable import NetworkKit
import NetworkKitNIO
@testable import NetworkKitOpenAPIRuntime
import NetworkKitTesting
import OpenAPIRuntime
import FixtureOpenAPIClient
import Testing

/// Which transport the service under the generated client sends through.
enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession = "URLSession"
    case nio = "NIO"

    var testDescription: String { rawValue }
}

/// The fixture server, a service on it and a generated client on that service.
struct Harness {
    let server: FixtureServer
    let service: Service
    let client: Client

    /// A service with `configure`'s settings on `transport`, and a client whose calls go
    /// through it with `options`.
    static func start(_ transport: TransportKind, configure: (inout ServiceConfiguration) -> Void = { _ in },
                      prepare: (@Sendable (AnyRequest, String) -> Void)? = nil,
                      inMemoryBodyLimit: Int = 1 << 20) async throws -> Harness {
        let server = try await FixtureServer.start()
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configure(&configuration)
        let service = switch transport {
        case .urlSession: Service(configuration: configuration)
        case .nio: Service(configuration: configuration, transport: NIOTransport())
        }
        let transport = ServiceClientTransport(service: service, inMemoryBodyLimit: inMemoryBodyLimit, prepare: prepare)
        // The server URL is the document's; `.service` sends to the service's base URL instead.
        let client = Client(serverURL: try Servers.Server1.url(), transport: transport)
        return Harness(server: server, service: service, client: client)
    }

    func stop() async {
        await service.shutdown(gracePeriod: .zero)
        server.stop()
    }
}

/// A client made by swift-openapi-generator calling the fixture server through a `Service`.
@Suite("A generated OpenAPI client through ServiceClientTransport")
struct ServiceClientTransportTests {
    @Test("a call goes through the service's pipeline: base URL, common headers, body", arguments: TransportKind.allCases)
    func callsGoThroughThePipeline(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport) { $0.commonHeaderFields = { [.app: "openapi-test"] } }
        defer { Task { await harness.stop() } }

        let small = try await harness.client.getSmall().ok.body.json
        #expect(small.content.name == "small")
        #expect(small.content.tags == ["a", "b"])

        let echo = try await harness.client.echo(body: .binary(HTTPBody("hello, server"))).ok.body.json
        #expect(echo.method == "POST")
        #expect(echo.body == "hello, server")
        #expect(echo.headers.additionalProperties["x-app"] ?? echo.headers.additionalProperties["X-App"] == "openapi-test")
    }

    @Test("a 503 is retried by the service's policy, then handed to the client as documented", arguments: TransportKind.allCases)
    func statusesAreRetriedThenReturned(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport) {
            $0.interceptors = [RetryPolicy(maxRetries: 2, backoff: Backoff(initial: .zero, jitter: 0))]
        }
        defer { Task { await harness.stop() } }

        let cured = try await harness.client.getFlaky(path: .init(key: "cured-\(transport)"), query: .init(failures: 2)).ok.body.json
        #expect(cured.hit == 3)
        #expect(harness.server.hits.count("cured-\(transport)") == 3)

        let failing = try await harness.client.getFlaky(path: .init(key: "failing-\(transport)"), query: .init(failures: 10))
        guard case .serviceUnavailable(let unavailable) = failing else { Issue.record("got \(failing)"); return }
        #expect(try unavailable.body.json.error == "hit 3")
        #expect(harness.server.hits.count("failing-\(transport)") == 3)
    }

    @Test("statuses the document lists and those it does not reach the client", arguments: TransportKind.allCases)
    func everyStatusReachesTheClient(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport)
        defer { Task { await harness.stop() } }

        let notFound = try await harness.client.getStatus(path: .init(code: 404))
        #expect(try notFound.notFound.body.json.error == "status 404")
        let teapot = try await harness.client.getStatus(path: .init(code: 418))
        guard case .undocumented(let status, _) = teapot else { Issue.record("got \(teapot)"); return }
        #expect(status == 418)
    }

    @Test("a call the app gives a cache policy is answered from the service's cache", arguments: TransportKind.allCases)
    func theCacheAnswers(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport, prepare: { request, operationID in
            if operationID == "getCached" { request.cache = CachePolicy(lifetime: .seconds(600)) }
        })
        defer { Task { await harness.stop() } }

        let key = "openapi-\(transport)"
        let first = try await harness.client.getCached(path: .init(key: key)).ok.body.json
        let second = try await harness.client.getCached(path: .init(key: key)).ok.body.json
        #expect(first.hit == 1)
        #expect(second.hit == 1)
        #expect(harness.server.hits.count(key) == 1)
    }

    @Test("server-sent events stream through asDecodedServerSentEvents", arguments: TransportKind.allCases)
    func eventsStream(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport)
        defer { Task { await harness.stop() } }

        let body = try await harness.client.getEvents(query: .init(count: 3)).ok.body.textEventStream
        var ids: [String] = []
        for try await event in body.asDecodedServerSentEvents() {
            ids.append(event.id ?? "")
        }
        #expect(ids == ["1", "2", "3"])
    }

    @Test("bytes stream in and a long body streams out without being collected", arguments: TransportKind.allCases)
    func largeBodies(transport: TransportKind) async throws {
        let sent = SentStreams()
        let harness = try await Harness.start(transport, prepare: { request, _ in
            if case .stream(let stream, _) = request.body { sent.append(stream) }
        }, inMemoryBodyLimit: 1_024)
        defer { Task { await harness.stop() } }

        let bytes = try await harness.client.getBytes(query: .init(count: 300_000, chunked: 1)).ok.body.binary
        var count = 0
        for try await chunk in bytes { count += chunk.count }
        #expect(count == 300_000)

        let pieces = AsyncStream<ArraySlice<UInt8>> { continuation in
            for _ in 0..<100 { continuation.yield(ArraySlice(repeating: UInt8(ascii: "z"), count: 1_000)) }
            continuation.finish()
        }
        let upload = HTTPBody(pieces, length: .unknown)
        let echo = try await harness.client.echo(body: .binary(upload)).ok.body.json
        #expect(echo.bodyLength == 100_000)
        let repeatable = HTTPBody([UInt8](repeating: UInt8(ascii: "y"), count: 6_000), length: .known(6_000),
                                  iterationBehavior: .multiple)
        #expect(try await harness.client.echo(body: .binary(repeatable)).ok.body.json.bodyLength == 6_000)
        let streams = sent.streams
        #expect(streams.map(\.length) == [nil, 6_000], "both bodies go out as streams, neither collected")
        #expect(streams.map(\.isRepeatable) == [false, true], "a body iterated once is sent once; one iterated again, again")
    }

    @Test("cancelling the calling task cancels the transfer", arguments: TransportKind.allCases)
    func cancellation(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport)
        defer { Task { await harness.stop() } }

        let call = Task { try await harness.client.getSlow(query: .init(ms: 60_000)) }
        while harness.service.activeRequestCount == 0 { await Task.yield() }
        call.cancel()
        do {
            _ = try await call.value
            Issue.record("the call returned")
        } catch let error as ClientError {
            #expect((error.underlyingError as? NetworkError)?.isCancellation == true, "\(error)")
        }
        while harness.service.activeRequestCount > 0 { await Task.yield() }
    }

    @Test("dropping a streamed body before its end cancels the transfer", arguments: TransportKind.allCases)
    func droppingAStreamedBody(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport)
        defer { Task { await harness.stop() } }

        do {
            let body = try await harness.client.getEvents(query: .init(count: 1_000, interval: 50)).ok.body.textEventStream
            for try await event in body.asDecodedServerSentEvents() {
                #expect(event.id == "1")
                break
            }
        }
        #expect(harness.service.activeRequestCount <= 1)
        while harness.service.activeRequestCount > 0 { await Task.yield() }
    }

    @Test("a failure reaches the client as a ClientError with the kit's NetworkError inside", arguments: TransportKind.allCases)
    func failuresAreNetworkErrors(transport: TransportKind) async throws {
        let harness = try await Harness.start(transport) { $0.maxResponseBytes = 10 }
        defer { Task { await harness.stop() } }
        do {
            _ = try await harness.client.getCached(path: .init(key: "too-large-\(transport)"), query: .init(cacheControl: nil))
            Issue.record("the call returned")
        } catch let error as ClientError {
            guard case .responseTooLarge(10)? = error.underlyingError as? NetworkError else {
                Issue.record("got \(error.underlyingError)")
                return
            }
            #expect(error.operationID == "getCached")
        }
    }

    @Test("the client's server URL is used when the transport is told to")
    func theClientsServerURL() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration())
        let client = Client(serverURL: server.baseURL,
                            transport: ServiceClientTransport(service: service, server: .client))
        #expect(try await client.getSmall().ok.body.json.content.id == 42)
    }

    @Test("with StubTransport, an app's tests answer the generated client without a server")
    func stubTransport() async throws {
        let stub = StubTransport()
        stub.answer(.get, .path("/json/small"),
                    with: .json(#"{"code": 0, "content": {"id": 7, "name": "stubbed"}}"#))
        stub.answer(.get, .path("/status/404"), with: .json(#"{"error": "stubbed"}"#, status: 404))
        let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")!),
                              transport: stub)
        let client = Client(serverURL: try Servers.Server1.url(), transport: ServiceClientTransport(service: service))
        #expect(try await client.getSmall().ok.body.json.content.name == "stubbed")
        #expect(try await client.getStatus(path: .init(code: 404)).notFound.body.json.error == "stubbed")
        #expect(stub.requests(.get, .path("/json/small")).first?.header(.accept) == "application/json")
    }

    @Test("repeated Set-Cookie fields stay apart in the client's response")
    func setCookieFieldsStayApart() {
        var fields: HTTPFields = [.contentType: "text/plain"]
        fields.append(HTTPField(name: .setCookie, value: "a=1; Path=/"))
        fields.append(HTTPField(name: .setCookie, value: "b=2, c; Path=/"))
        let head = ResponseHead(url: nil, status: 200, headerFields: fields)
        let response = ServiceClientTransport.response(head)
        #expect(response.headerFields[values: .setCookie] == ["a=1; Path=/", "b=2, c; Path=/"])
        #expect(response.headerFields[.contentType] == "text/plain")
    }

    @Test("a body the kit inflated reaches the client without the wire's Content-Encoding and Content-Length")
    func inflatedBodiesLoseTheirCoding() {
        let gzip = ResponseHead(url: nil, status: 200,
                                headerFields: [.contentEncoding: "gzip", .contentLength: "120", .eTag: "\"v1\""])
        let fields = ServiceClientTransport.response(gzip).headerFields
        #expect(fields[.contentEncoding] == nil)
        #expect(fields[.contentLength] == nil)
        #expect(fields[.eTag] == "\"v1\"")
        let unknown = ResponseHead(url: nil, status: 200, headerFields: [.contentEncoding: "x-custom", .contentLength: "7"])
        #expect(ServiceClientTransport.response(unknown).headerFields[.contentEncoding] == "x-custom",
                "a coding the kit does not decode is left for the client")
    }
}

/// The streamed request bodies, as the `prepare` hook saw them.
final class SentStreams: Sendable {
    private let sent = Protected<[RequestBodyStream]>([])
    func append(_ stream: RequestBodyStream) { sent.withLock { $0.append(stream) } }
    var streams: [RequestBodyStream] { sent.withLock { $0 } }
}

extension HTTPField.Name {
    /// `X-App`, which the tests' services send with every request.
    static var app: Self { Self("X-App")! }
}
