import Foundation
import NetworkKit
import NetworkKitTesting

// MARK: - Stubbing the network

func stubAFeed() async throws -> StubTransport {
    let stub = StubTransport()
    stub.answer(.get, .path("/v1/feed"), with: .json(#"{"code": 0, "content": {"entrance": [{"name": "News"}]}}"#))
    let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com/v1")),
                          transport: stub)

    let names = try await service.send(Request(path: "/feed", parser: JSONParser(
        businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")))
    assert(names[0]?["name"] == "News")
    assert(stub.requests.map(\.description) == ["GET https://api.example.com/v1/feed"])
    return stub
}

func stubSeveralAnswers() -> StubTransport {
    let stub = StubTransport()
    stub.answer(.post, .path("/v1/orders"), with: .json(#"{"code": 0, "id": 7}"#, status: 201))
    stub.answer(.get, .pathPrefix("/v1/orders/"), with: .json(#"{"code": 0, "state": "shipped"}"#))
    stub.answer(nil, .matching("unauthenticated") { $0.header(.authorization) == nil }, with: .json("{}", status: 401))
    stub.answer(.get, .path("/v1/flaky"), with: [.failure(URLError(.networkConnectionLost)), .json(#"{"code": 0}"#)])
    return stub
}

func shapedAnswers() -> [StubResponse] {
    let bytes = Data(repeating: 0x61, count: 1 << 20)
    let slow = StubResponse(status: 200, headerFields: [.contentType: "application/octet-stream"], body: bytes)
        .chunked(bySize: 64 * 1024)
        .delayed(head: .milliseconds(300), betweenChunks: .milliseconds(20))
    let dropped = slow.droppingConnection(afterBytes: 100_000)   // fails with .networkConnectionLost
    let silent = slow.timingOut(afterBytes: 1_000)               // fails with .timedOut after the request's timeout
    let offline = StubResponse.failure(URLError(.notConnectedToInternet))
    let moved = StubResponse.redirect(to: "/v1/new-home", status: 301)
    return [slow, dropped, silent, offline, moved]
}

func stubOnAClock(_ clock: any Clock<Duration>) -> StubTransport {
    let stub = StubTransport(clock: clock)
    stub.answer(.get, .path("/v1/report"), with: StubResponse.json("{}").delayed(head: .seconds(30)))
    return stub
}

func stubAChat() -> StubTransport {
    let stub = StubTransport()
    stub.answer(.get, .path("/chat"), with: [StubResponse(status: 401), .webSocket { peer in
        try peer.send(.text("welcome, \(peer.request.header(.authorization) ?? "stranger")"))
        while let message = try await peer.receive() {
            try peer.send(message)
        }
    }])
    return stub
}

// MARK: - Recording and replaying sessions

func recordAFeed() async throws {
    let recorder = HARRecorder()
    let transport = RecordingTransport(wrapping: URLSessionTransport(), recorder: recorder)
    let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                          transport: transport)
    _ = try await service.send(Request(path: "/v1/feed", parser: JSONParser()))
    try recorder.write(to: URL(fileURLWithPath: "feed.har"))
}

func replayAFeed() async throws -> JSON {
    let stub = try StubTransport(har: URL(fileURLWithPath: "feed.har"))
    let replayed = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                           transport: stub)
    let feed = try await replayed.send(Request(path: "/v1/feed", parser: JSONParser()))
    return feed
}
