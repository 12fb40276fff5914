import CZlib
import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// Servers that try to take a client's memory or time, for the size and time limits.
    static func addHostile(to router: Router<BasicRequestContext>) {
        // A chunked body that never ends (64 KB of "a" per write) until the client goes away.
        router.get("endless") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody { writer in
                         let block = ByteBuffer(repeating: 0x61, count: 64 * 1024)
                         while true { try await writer.write(block) }
                     })
        }
        // ?mb=N (default 1024): N MiB of zeros as one stream of ?coding= (gzip by default, or
        // br, zstd, deflate), sent with that `Content-Encoding`; a few KB on the wire.
        router.get("bomb") { request, _ in
            let megabytes = min(4096, max(1, Int(query(request, "mb") ?? "") ?? 1024))
            guard let coding = FixtureCoding(rawValue: query(request, "coding") ?? "gzip") else {
                return json(#"{"error": "unknown coding"}"#, status: .badRequest)
            }
            return respond(contentType: "application/json", body: coding.zeros(megabytes: megabytes),
                           extraHeaders: [.contentEncoding: coding.headerValue])
        }
        // /compressed/gzip|deflate|rawdeflate|br|zstd?count=N (default 100, at most 1,000,000): a
        // JSON array of N items, compressed (deflate zlib-wrapped, rawdeflate without a wrapper but
        // sent as `deflate`; each body made once and kept); ?cut=K leaves out the last K bytes of
        // the compressed body; ?corrupt=1 spoils its middle. /compressed/identity?count=N: the
        // same array as it is, without `Content-Encoding`.
        router.get("compressed/identity") { request, _ in
            let count = min(1_000_000, max(0, Int(query(request, "count") ?? "") ?? 100))
            return respond(contentType: "application/json", body: FixtureCoding.plainItems(count))
        }
        router.get("compressed/{coding}") { request, context in
            guard let coding = FixtureCoding(rawValue: context.parameters.get("coding") ?? "") else {
                return json(#"{"error": "unknown coding"}"#, status: .badRequest)
            }
            let count = min(1_000_000, max(0, Int(query(request, "count") ?? "") ?? 100))
            var body = coding.items(count)
            body.removeLast(min(body.count, max(0, Int(query(request, "cut") ?? "") ?? 0)))
            if query(request, "corrupt") == "1", body.count > 16 {
                body.replaceSubrange(body.count / 2 ..< body.count / 2 + 8, with: repeatElement(0xFF, count: 8))
            }
            return respond(contentType: "application/json", body: body, extraHeaders: [.contentEncoding: coding.headerValue])
        }
        // `/drip`, a body slow enough for the time limit, is with the streaming routes (`addStreams`).
    }
}

/// One-shot zlib compression for the fixture's compressed answers.
public enum FixtureZlib {
    /// `data` compressed at level 6; `windowBits` 31 writes gzip, 15 zlib, -15 raw deflate.
    public static func compress(_ data: Data, windowBits: Int32) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return Data() }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))))
        let written: Int = data.withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        return Data(output.prefix(written))
    }
}
