// Getting Started, "Five common tasks", compiled (see GettingStartedSamples.swift).
import Foundation
import NetworkKit
import NetworkKitImage
import NetworkKitTesting
import Testing

func taskCodableBehindABusinessCode(api: Service) async throws {
    struct Profile: Decodable, Sendable { var id: Int; var name: String }

    // {"code": 0, "message": "ok", "data": {"id": 7, "name": "Ann"}}
    let profile = try await api.send(Request(path: "/me", parser: ModelParser(Profile.self, json: JSONParser(
        businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data"))))
    print(profile.name)
}

func taskDownload(api: Service, downloads: URL) async throws {
    let download = Request(path: "/files/report.pdf", downloadTo: .directory(downloads))
    let updates = download.progressUpdates    // made before sending: it misses no progress
    Task { for await progress in updates { print(progress.fractionCompleted ?? 0) } }
    let file = try await api.send(download)   // if it breaks, a new Request for the same path and destination resumes it
    print(file.url)
}

func taskThumbnail(api: Service) async throws {
    ImageCodecRegistry.shared.register(JPEGCodec(maxThreads: 1), forMIMETypes: ["image/jpeg"])  // at startup

    let thumbnail = try await api.send(Request(path: "/photos/1.jpg", parser: ImageParser(maxPixelSize: 256)))
    print(thumbnail.width, thumbnail.height)
}

func taskEvents(api: Service) async throws {
    for try await event in api.stream(StreamRequest(path: "/events")) {
        print(event.type, event.data)
    }
}

func loadFeedNames(_ api: Service) async throws -> [String] {
    let entrances = try await api.send(Request(path: "/feed", parser: JSONParser(
        businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")))
    return (entrances.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
}

@Test func theFeedShowsTheServersEntrances() async throws {
    let stub = StubTransport()
    stub.answer(.get, .path("/v1/feed"), with: .json(#"{"code": 0, "content": {"entrance": [{"name": "News"}]}}"#))
    let api = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com/v1")), transport: stub)
    #expect(try await loadFeedNames(api) == ["News"])
}
