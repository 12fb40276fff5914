import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    static func addFaults(to router: Router<BasicRequestContext>) {
        // /status/404 answers that status with a JSON body naming it.
        router.get("status/{code}") { _, context in
            let code = context.parameters.get("code", as: Int.self) ?? 500
            return json(#"{"error": "status \#(code)"}"#, status: HTTPResponse.Status(code: code))
        }
        // ?ms=N waits N milliseconds before answering.
        router.get("slow") { request, _ in
            let ms = Int(query(request, "ms") ?? "") ?? 1000
            try await Task.sleep(for: .milliseconds(ms))
            return json(#"{"code": 0, "slept": \#(ms)}"#)
        }
        // Announces 100 000 bytes, sends 1 000, then the connection drops.
        router.get("drop") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody(contentLength: 100_000) { writer in
                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: 1_000))
                    throw FixtureFault.droppedConnection
                }
            )
        }
    }
}

enum FixtureFault: Error {
    case droppedConnection
    /// zlib refused to set up a compressed body.
    case compressionFailed
}
