import FixtureAPI
import Foundation
import NetworkKit

// MARK: - Generating Requests from OpenAPI

func generatedProfile() async throws {
    let service = Service(configuration: ServiceConfiguration(baseURL: URL(string: "http://127.0.0.1:8080")))
    let profile = try await service.send(FixtureAPI.getProfile(id: 42))
    print(profile.displayName, profile.createdAt)
}

func generatedFeed(service: Service) {
    let request = FixtureAPI.getFeed()
    request.timeout = .seconds(5)
    request.addCompletionHandler { _, result in print(result) }
    service.start(request)
}

func generatedBodies(service: Service, downloads: URL) async throws {
    let echo = try await service.send(FixtureAPI.echoForm(user: "ann", note: "hello"))
    let update = try FixtureAPI.echoJSON(body: FixtureAPI.ProfileUpdate(displayName: "Ann", role: .admin))
    let file = try await service.send(FixtureAPI.downloadFile(name: "report.bin", to: .directory(downloads)))
    _ = (echo, update, file)
}

/// What `swift package generate-model --name Banner` writes for the feed sample (shortened).
private struct Banner: Codable, Sendable {
    var name: String
    var type: Int
}

func inferredModelParser() {
    let entrances = ModelParser([Banner].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance"))
    _ = entrances
}
