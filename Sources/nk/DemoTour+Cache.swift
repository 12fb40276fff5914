import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: the response cache (memory and disk), revalidation and cache-then-network.
extension DemoTour {
    var cacheSteps: [Step] {
        [
            ("Response cache: a fresh entry answers with no traffic (YTKNetwork's cacheTimeInSeconds)", {
                let key = "demo-\(UUID().uuidString.prefix(8))"
                var replies: [String] = []
                for _ in 0..<3 {
                    let request = Request(path: "/cache/\(key)", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code")))
                    request.cache = CachePolicy(lifetime: .seconds(60))
                    let reply = try await service.reply(to: request)
                    replies.append("\(reply.metrics.cache)")
                }
                return "3 requests → \(replies.joined(separator: ", ")); the server saw \(server.hits.count(key)) hit"
            }),
            ("Disk cache: a new service with the same directory answers from disk; a stale entry is revalidated by 304", {
                let folder = try DemoFolder()
                let key = "disk-\(UUID().uuidString.prefix(8))"
                func send(lifetime: Int) async throws -> String {
                    var configuration = service.configuration
                    configuration.responseCache = ResponseCache(directory: folder.url)
                    let request = Request(path: "/cache/\(key)?etag=v", parser: JSONParser())
                    request.cache = CachePolicy(lifetime: .seconds(lifetime))
                    return "\(try await Service(configuration: configuration).reply(to: request).metrics.cache)"
                }
                let outcomes = [try await send(lifetime: 60), try await send(lifetime: 60), try await send(lifetime: 0)]
                return "fresh service each time → \(outcomes.joined(separator: ", ")); server: \(server.hits.count(key)) hits, "
                    + "\(server.hits.count(key + "/304")) answered 304"
            }),
            ("Cache then network: the handlers get the cached value first, then the fresh one", {
                let key = "then-\(UUID().uuidString.prefix(8))"
                let policy = CachePolicy(lifetime: .seconds(60), mode: .cacheThenNetwork)
                let first = Request(path: "/cache/\(key)", parser: JSONParser(contentKeyPath: "hit"))
                first.cache = policy
                _ = try await service.send(first)
                let request = Request(path: "/cache/\(key)", parser: JSONParser(contentKeyPath: "hit"))
                request.cache = policy
                var seen: [String] = []
                for try await reply in service.replies(to: request) {
                    seen.append("hit \(reply.value) (\(reply.metrics.isFromCache ? "cache" : "network"))")
                }
                return seen.joined(separator: ", then ")
            }),
        ]
    }
}
