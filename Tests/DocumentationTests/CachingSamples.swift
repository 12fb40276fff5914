import Foundation
import NetworkKit

// MARK: - The response cache

private struct Profile: Codable, Sendable {
    var name: String
}

func cachedFeed(service: Service) async throws {
    let request = Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code")))
    request.cache = CachePolicy(lifetime: .seconds(300))
    let reply = try await service.reply(to: request)
    print(reply.value, reply.metrics.cache, reply.metrics.isFromCache)
}

func cacheKeyRules() -> (ServiceConfiguration, CachePolicy) {
    var configuration = ServiceConfiguration()
    configuration.commonParameters = { ["ts": .int(Int64(Date().timeIntervalSince1970))] }
    configuration.ignoredCacheKeyArguments = ["ts"]
    var policy = CachePolicy(lifetime: .seconds(300))
    policy.ignoredArguments = ["nonce"]
    return (configuration, policy)
}

func cachedProfile(service: Service, userID: String) async throws {
    let request = Request(path: "/profile", parser: ModelParser(Profile.self))
    request.cache = CachePolicy(lifetime: .seconds(3600), version: 2, sensitiveData: userID)
    _ = try await service.send(request)
}

func cachedConfig(service: Service) async throws {
    let request = Request(path: "/config")
    request.cache = .http(defaultLifetime: .seconds(60))
    _ = try await service.send(request)
}

func cacheThenNetwork(service: Service) async throws {
    let request = Request(path: "/feed", parser: JSONParser(contentKeyPath: "items"))
    request.cache = CachePolicy(lifetime: .seconds(60), mode: .cacheThenNetwork)
    if let last = try service.cachedValue(for: request) {
        print("showing", last.value, "stored", last.storedAt, last.isFresh ? "fresh" : "stale")
    }
    for try await reply in service.replies(to: request) {
        print(reply.metrics.isFromCache ? "cached" : "fresh", reply.value)
    }
}

func diskCachedService(cachesDirectory: URL) -> Service {
    var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    configuration.responseCache = ResponseCache(memoryCapacity: 8 << 20, diskCapacity: 128 << 20,
                                                directory: cachesDirectory.appendingPathComponent("api"))
    let service = Service(configuration: configuration)
    return service
}
