// The code of the DocC articles, compiled in CI. `ArticleSampleTests` checks that every
// ```swift block of every article stands word for word in this target's *Samples.swift files,
// so an article cannot show code that does not build. The functions are compiled, never run:
// their URLs are examples.
import Foundation
import NetworkKit

// MARK: - Getting Started

struct Entrance: Codable, Sendable {
    var name: String
    var type: Int
}

func gettingStartedService() -> Service {
    let api = Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")))
    return api
}

func gettingStartedAsync(api: Service) async throws {
    // {"code": 0, "message": "ok", "content": {"entrance": [...]}}
    let request = Request(path: "/feed", parser: ModelParser([Entrance].self, json: JSONParser(
        businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")))
    let entrances = try await api.send(request)
    print(entrances.count)
}

func gettingStartedHandlers(api: Service) {
    let request = Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance"))
    request.addCompletionHandler { request, result in
        switch result {
        case .success(let entrance): print(entrance)
        case .failure(.businessCode(let code, let message)): print("server said \(code): \(message ?? "")")
        case .failure(let error): print(error)
        }
    }
    request.addProgressHandler { _, progress in print(progress.fractionCompleted ?? 0) }
    api.start(request)   // the service holds the request until its handlers have run
}

func gettingStartedHeaderFields(api: Service) async throws {
    let feed = Request(path: "/feed", headerFields: [.acceptLanguage: "fr", .appVersion: "2.1"], parser: JSONParser())
    let reply = try await api.reply(to: feed)
    if reply.status == .ok, let etag = reply.head.headerFields[.eTag] { print("feed version", etag) }
    for cookie in reply.head.headerFields[values: .setCookie] { print("the server set", cookie) }
}

func gettingStartedParameters(api: Service) async throws {
    let search = Request(path: "/search", parameters: ["q": "swift", "page": 2], parser: JSONParser())
    let login = Request(path: "/login", method: .post, parameters: ["user": "ann", "password": "s3cret"],
                        parser: JSONParser())
    login.body = .json                                   // the parameters as a JSON body
    _ = try await (api.send(search), api.send(login))
}

func gettingStartedEncodable(api: Service) async throws {
    struct Search: Encodable { var q: String; var page: Int }
    struct NewOrder: Encodable { var item: Int; var quantity: Int }

    let found = Request(path: "/search", parameters: try .encoding(Search(q: "swift", page: 2)), parser: JSONParser())
    let order = Request(path: "/orders", method: .post, parser: JSONParser())
    order.body = try .json(NewOrder(item: 42, quantity: 2))
    _ = try await (api.send(found), api.send(order))
}

func gettingStartedModelConverter() {
    ModelRegistry.shared.register(Entrance.self) { json in
        Entrance(name: json["title"]?.stringValue ?? "", type: Int(json["kind"]?.intValue ?? 0))
    }
}
