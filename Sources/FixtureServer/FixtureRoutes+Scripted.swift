import Foundation
import Hummingbird
import NetworkKitTesting
import NIOCore

extension FixtureRoutes {
    /// `/scripted/NAME` plays the `StubResponse` published as NAME (`FixtureServer.play(_:as:)`)
    /// over the wire, to any method: the same status, headers, chunks, delays and faults that a
    /// `StubTransport` plays in memory. The request's body is read first and its length kept in
    /// `received` under NAME.
    static func addScripted(to router: Router<BasicRequestContext>, scripts: ScriptStore, received: NamedStore<[Int]>) {
        @Sendable func play(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
            let body = try await request.body.collect(upTo: 256 << 20)
            guard let name = context.parameters.get("name"), let script = scripts.get(name) else {
                return json(#"{"error": "no such script"}"#, status: .notFound)
            }
            received.update(name) { $0 = ($0 ?? []) + [body.readableBytes] }
            return try await response(playing: script)
        }
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete, .head] {
            router.on("scripted/{name}", method: method, use: play)
        }
    }

    /// The answer `script` describes: its head after its head delay, then its chunks with the
    /// delays between them, ending as its fault says.
    private static func response(playing script: StubResponse) async throws -> Response {
        if script.headDelay > .zero { try await Task.sleep(for: script.headDelay) }
        switch script.fault {
        case .timeOut(.none):
            // Silent longer than any test's timeout; the client gives up first.
            try await Task.sleep(for: .seconds(30))
        case .failure:
            // A network failure has no server side: a test that plays one runs on a stub only.
            return json(#"{"error": "a failure fault cannot be played by a server"}"#, status: .notImplemented)
        default:
            break
        }
        var headers = script.sentHeaderFields
        let length = headers[.contentLength].flatMap { Int($0) }
        headers[.contentLength] = nil
        let chunks = script.sentChunks
        return Response(
            status: script.status, headers: headers,
            body: ResponseBody(contentLength: length) { writer in
                for (index, chunk) in chunks.enumerated() {
                    if index > 0, script.chunkDelay > .zero { try await Task.sleep(for: script.chunkDelay) }
                    try await writer.write(ByteBuffer(bytes: chunk))
                }
                switch script.fault {
                case .dropConnection: throw FixtureFault.droppedConnection
                case .timeOut:
                    try await Task.sleep(for: .seconds(30))
                    throw FixtureFault.droppedConnection
                case .failure, nil: try await writer.finish(nil)
                }
            }
        )
    }
}

/// The scripted answers by name.
typealias ScriptStore = NamedStore<StubResponse>
