import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// Routes that count their hits per key, for retry and "nothing was sent" tests.
    static func addCounting(to router: Router<BasicRequestContext>, hits: HitCounter) {
        // Answers `{"code": 0, "hit": N}` and counts the hit.
        router.on("count/{key}", method: .get, use: { request, context in
            let hit = hits.increment(context.parameters.get("key") ?? "")
            return json(#"{"code": 0, "hit": \#(hit)}"#)
        })
        router.on("count/{key}", method: .post, use: { request, context in
            let hit = hits.increment(context.parameters.get("key") ?? "")
            return json(#"{"code": 0, "hit": \#(hit)}"#)
        })
        // The first `failures` hits (default 2) answer `status` (default 503), with a
        // `Retry-After: retryAfter` header when asked; later hits answer like /count. With
        // `drop=1` the failing hits drop the connection mid-body instead.
        let flaky: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            let hit = hits.increment(context.parameters.get("key") ?? "")
            let failures = Int(query(request, "failures") ?? "") ?? 2
            guard hit <= failures else { return json(#"{"code": 0, "hit": \#(hit)}"#) }
            if query(request, "drop") == "1" {
                return Response(status: .ok, headers: [.contentType: "application/json"],
                                body: ResponseBody(contentLength: 10_000) { writer in
                                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: 100))
                                    throw FixtureFault.droppedConnection
                                })
            }
            let status = Int(query(request, "status") ?? "") ?? 503
            var headers: HTTPFields = [:]
            if let retryAfter = query(request, "retryAfter") { headers[.retryAfter] = retryAfter }
            return respond(HTTPResponse.Status(code: status), contentType: "application/json",
                           body: Data(#"{"error": "hit \#(hit)"}"#.utf8), extraHeaders: headers)
        }
        router.on("flaky/{key}", method: .get, use: flaky)
        router.on("flaky/{key}", method: .post, use: flaky)
        // `{"hits": N}`: how many times /count/KEY or /flaky/KEY was hit.
        router.get("hits/{key}") { _, context in
            json(#"{"hits": \#(hits.count(context.parameters.get("key") ?? ""))}"#)
        }
    }
}

/// Hit counts per key.
///
/// `@unchecked Sendable`: `counts` is only read and written while holding `lock`.
public final class HitCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    func increment(_ key: String) -> Int {
        lock.withLock {
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    /// How many hits `key` has had.
    public func count(_ key: String) -> Int {
        lock.withLock { counts[key, default: 0] }
    }
}
