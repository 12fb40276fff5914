import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    static func addTransfers(to router: Router<BasicRequestContext>, blobs: BlobStore) {
        // ?count=N bytes, in 64 KB writes; ?chunked=1 leaves out Content-Length; ?pauseMs=N waits
        // that long after the first write.
        router.get("bytes") { request, _ in
            let count = max(0, Int(query(request, "count") ?? "") ?? 1024)
            let length = query(request, "chunked") == "1" ? nil : count
            let pause = Int(query(request, "pauseMs") ?? "") ?? 0
            return Response(
                status: .ok,
                headers: [.contentType: "application/octet-stream"],
                body: ResponseBody(contentLength: length) { writer in
                    var left = count
                    while left > 0 {
                        let size = min(left, 64 * 1024)
                        try await writer.write(ByteBuffer(repeating: 0x61, count: size))
                        if left == count, pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
                        left -= size
                    }
                    try await writer.finish(nil)
                }
            )
        }
        // Echoes what arrived: method, path, query, headers, body.
        router.on("echo", method: .get, use: echo)
        router.on("echo", method: .post, use: echo)
        router.on("echo", method: .put, use: echo)
        router.on("echo", method: .patch, use: echo)
        router.on("echo", method: .delete, use: echo)
        router.on("echo", method: .head, use: echo)
        router.on("echo", method: .options, use: echo)
        if let purge = HTTPRequest.Method("PURGE") { router.on("echo", method: purge, use: echo) }
        router.get("blob/{name}") { request, context in
            guard let name = context.parameters.get("name"), let blob = blobs.get(name) else {
                return json(#"{"error": "no such blob"}"#, status: .notFound)
            }
            var type = blob.contentType
            if let override = query(request, "type") { type = override == "none" ? nil : override }
            var extra: HTTPFields = [:]
            if let encoding = query(request, "encoding") { extra[.contentEncoding] = encoding }
            return respond(contentType: type, body: blob.data, extraHeaders: extra)
        }
    }

    @Sendable static func echo(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 * 1024 * 1024)
        var headers: [String: String] = [:]
        // Repeated fields joined with ", ", as RFC 9110 §5.3 lets a recipient combine them.
        for field in request.headers {
            headers[field.name.rawName] = headers[field.name.rawName].map { $0 + ", " + field.value } ?? field.value
        }
        let echo: [String: Any] = [
            "method": request.method.rawValue,
            "path": request.uri.path,
            "query": request.uri.query ?? "",
            "headers": headers,
            "host": request.head.authority ?? "",
            "bodyLength": body.readableBytes,
            "body": String(buffer: body),
        ]
        let data = try JSONSerialization.data(withJSONObject: echo, options: [.sortedKeys])
        return respond(contentType: "application/json", body: data)
    }
}
