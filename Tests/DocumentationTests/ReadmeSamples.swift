// The README's Swift, compiled: `ArticleSampleTests` checks that each of its ```swift blocks
// (a package manifest's lines aside) stands here, its `import` lines aside.
import Foundation
import NetworkKit
import NetworkKitNIO

func readmeFirstRequest() async throws {
    struct User: Decodable, Sendable {
        let id: Int
        let name: String
    }

    let api = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")))
    let user = try await api.send(Request(path: "/user", parser: ModelParser(User.self)))
    print(user.name)
}

func readmeEnvelope(api: Service) async throws {
    // {"code": 0, "message": "ok", "content": {"entrance": [...]}}
    let request = Request(path: "/feed", parser: ModelParser([Entrance].self, json: JSONParser(
        businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")))
    let entrances = try await api.send(request)        // or request.addCompletionHandler { … }; api.start(request)
    print(entrances.count)
}

func readmeNIO() -> Service {
    let api = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                      transport: NIOTransport())
    return api
}
