import Foundation
import NetworkKit
import NetworkKitTesting
import Testing

/// `Service.completion(of:)`: the handler path awaited.
@Suite("Service.completion(of:)", .timeLimit(.minutes(1)))
struct CompletionTests {
    static func service(_ stub: StubTransport) -> Service {
        Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                transport: stub)
    }

    @Test func itReturnsAfterEveryProgressHandlerCall() async throws {
        let stub = StubTransport()
        stub.answer(.get, .any, with: StubResponse(body: Data(count: 1 << 20)).chunked(into: 16))
        let request = Request(path: "/bytes")
        let reported = Protected<Int64>(0)
        request.addProgressHandler { _, progress in reported.withLock { $0 = progress.completedBytes } }
        let result = await Self.service(stub).completion(of: request)
        #expect(result.success?.count == 1 << 20)
        #expect(reported.snapshot == 1 << 20)
    }

    @Test func cancellingTheCallingTaskCancelsTheRequest() async throws {
        let stub = StubTransport()
        let service = Self.service(stub)
        let (request, result) = await cancelWhileSilent(stub) { await service.completion(of: $0) }
        #expect(result.failure?.isCancellation == true)
        #expect(request.state == .cancelled)
    }
}
