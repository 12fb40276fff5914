import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// Images written slowly, for image streams (previews before the body ends):
    ///
    /// - `GET /images/drip/{name}`: the image `name`, a published blob (`FixtureServer.publish`)
    ///   or, when none has that name, a built-in one of ``FixtureImages``: `progressive.jpg`,
    ///   `baseline.jpg`, `interlaced.png`. Its `Content-Type` is the blob's, or the built-in's
    ///   (`image/jpeg`, `image/png`); `Content-Length` is announced. Query:
    ///   - `chunk` (default 512): the bytes of each write;
    ///   - `interval` (ms, default 20): the pause between two writes;
    ///   - `hold` and `gate`: after `hold` bytes the writing waits until `POST /images/gate/{gate}`
    ///     opened that gate (at most 60 s), so a test knows what it got came before the rest;
    ///   - `cut`: only the first `cut` bytes are written, then, with `end=drop` (the default),
    ///     the connection is closed short of the whole file's `Content-Length` (a lost
    ///     connection), or, with `end=short`, `cut` was the length announced (a clean end).
    /// - `POST /images/gate/{gate}`: opens the gate (204), as `POST /gates/{gate}` does.
    static func addImages(to router: Router<BasicRequestContext>, blobs: BlobStore, gates: NamedStore<Bool>) {
        router.post("images/gate/{gate}") { _, context in
            if let gate = context.parameters.get("gate") { gates.put(gate, true) }
            return Response(status: .noContent)
        }
        router.get("images/drip/{name}") { request, context in
            let name = context.parameters.get("name") ?? ""
            guard let image = blobs.get(name) ?? builtInImage(name) else {
                return json(#"{"error": "no such image"}"#, status: .notFound)
            }
            let chunk = max(1, number(request, "chunk") ?? 512)
            let pause = max(0, number(request, "interval") ?? 20)
            let hold = number(request, "hold")
            let gate = query(request, "gate") ?? ""
            let cut = min(image.data.count, max(0, number(request, "cut") ?? image.data.count))
            let short = query(request, "end") == "short"
            var headers: HTTPFields = [:]
            if let type = image.contentType { headers[.contentType] = type }
            let body = Data(image.data)
            return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: short ? cut : body.count) { writer in
                var offset = 0
                var held = false
                while offset < cut {
                    if offset > 0, pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
                    if let hold, offset >= hold, !held {
                        try await waitForGate(gate, in: gates)
                        held = true
                    }
                    var end = min(cut, offset + chunk)
                    if let hold, offset < hold { end = min(end, hold) }
                    try await writer.write(ByteBuffer(bytes: body[offset..<end]))
                    offset = end
                }
                guard cut == body.count || short else {
                    // Give the bytes time to leave, then abort without the rest (see /events/drop).
                    try await Task.sleep(for: .milliseconds(20))
                    throw FixtureFault.droppedConnection
                }
                try await writer.finish(nil)
            })
        }
    }

    /// The built-in image named `name`, if any.
    private static func builtInImage(_ name: String) -> Blob? {
        switch name {
        case "progressive.jpg": Blob(data: FixtureImages.progressiveJPEG, contentType: "image/jpeg")
        case "baseline.jpg": Blob(data: FixtureImages.baselineJPEG, contentType: "image/jpeg")
        case "interlaced.png": Blob(data: FixtureImages.interlacedPNG, contentType: "image/png")
        default: nil
        }
    }
}
