import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// `/files/NAME`: a file of `?size=N` pseudo-random bytes (fixed by `?seed=S`, see
    /// `FixtureFile`) with an `ETag` (`?etag=`, default "v1"), `Last-Modified` and
    /// `Accept-Ranges`, answering `Range: bytes=N-` with `206` when `If-Range` matches.
    ///
    /// Faults: `?dropAt=K` drops the connection after byte K of the file (only on the first hit
    /// of `?dropKey=X` when given); `?ignoreRange=1` always answers `200`; `?badRange=1` answers
    /// a `206` starting one byte later than asked; `?validators=none` sends no `ETag` or
    /// `Last-Modified`; `?disposition=...` sends that `Content-Disposition`; `?chunked=1` leaves
    /// out `Content-Length`.
    static func addFiles(to router: Router<BasicRequestContext>, hits: HitCounter) {
        router.on("files/{name}", method: .get) { request, _ in
            let size = max(0, Int(query(request, "size") ?? "") ?? 1024 * 1024)
            var seed = UInt64(query(request, "seed") ?? "") ?? 1
            var etag = "\"\(query(request, "etag") ?? "v1")\""
            // After the first hit of `dropKey`, `?changeAfterDrop=1` serves another file (seed + 1)
            // under another ETag: the resource changed between attempts.
            let key = query(request, "dropKey")
            let hit = key.map { hits.increment("drop:" + $0) } ?? 1
            if hit > 1, query(request, "changeAfterDrop") == "1" {
                seed += 1
                etag = "\"changed\""
            }
            var headers: HTTPFields = [.contentType: "application/octet-stream", .acceptRanges: "bytes"]
            if query(request, "validators") != "none" {
                headers[.eTag] = etag
                headers[.lastModified] = "Mon, 02 Nov 2026 10:00:00 GMT"
            }
            if let disposition = query(request, "disposition") { headers[.contentDisposition] = disposition }

            var start = 0
            var status = HTTPResponse.Status.ok
            if let range = request.headers[.range], query(request, "ignoreRange") != "1",
               request.headers[.ifRange] == nil || request.headers[.ifRange] == etag,
               let asked = FixtureFile.rangeStart(range) {
                guard asked < size else {
                    headers[.contentRange] = "bytes */\(size)"
                    return Response(status: .rangeNotSatisfiable, headers: headers)
                }
                start = query(request, "badRange") == "1" ? min(size, asked + 1) : asked
                status = .partialContent
                headers[.contentRange] = "bytes \(start)-\(size - 1)/\(size)"
            }
            let dropAt = hit > 1 ? nil : Int(query(request, "dropAt") ?? "")
            let length = query(request, "chunked") == "1" ? nil : size - start
            let (first, fileSeed) = (start, seed)
            return Response(status: status, headers: headers, body: ResponseBody(contentLength: length) { writer in
                let (start, seed) = (first, fileSeed)
                var offset = start
                while offset < size {
                    var count = min(size - offset, 256 * 1024)
                    if let dropAt, dropAt >= offset { count = min(count, dropAt - offset) }
                    if count > 0 { try await writer.write(FixtureFile.buffer(seed: seed, offset: offset, count: count)) }
                    offset += count
                    if let dropAt, offset >= dropAt {
                        // Let the bytes written so far reach the client before the connection
                        // goes: closing at once can discard what is still queued, and then the
                        // client would hold fewer bytes than `dropAt`.
                        try await Task.sleep(for: .milliseconds(100))
                        throw FixtureFault.droppedConnection
                    }
                }
                try await writer.finish(nil)
            })
        }
    }
}

/// The content of `/files/…`: byte `i` of the file with seed `s` depends only on `s` and `i`,
/// so any range can be made on its own and tests can compute what they should receive.
public enum FixtureFile {
    /// `count` bytes of the file with `seed`, from `offset`.
    public static func bytes(seed: UInt64, offset: Int, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            fill(UnsafeMutableRawBufferPointer(buffer), seed: seed, offset: offset)
            initialized = count
        }
    }

    static func buffer(seed: UInt64, offset: Int, count: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { target in
            fill(UnsafeMutableRawBufferPointer(rebasing: target.prefix(count)), seed: seed, offset: offset)
            return count
        }
        return buffer
    }

    private static func fill(_ target: UnsafeMutableRawBufferPointer, seed: UInt64, offset: Int) {
        var index = 0
        // Whole words at once where the offset is aligned (the common case), bytes otherwise.
        while index < target.count, (offset + index) % 8 != 0 {
            target[index] = byte(at: offset + index, seed: seed)
            index += 1
        }
        while target.count - index >= 8 {
            let value = word((offset + index) / 8, seed: seed).littleEndian
            target.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < target.count {
            target[index] = byte(at: offset + index, seed: seed)
            index += 1
        }
    }

    private static func word(_ index: Int, seed: UInt64) -> UInt64 {
        var generator = SeededGenerator(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
        return generator.next()
    }

    private static func byte(at position: Int, seed: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: word(position / 8, seed: seed) >> (8 * UInt64(position % 8)))
    }

    /// N in `bytes=N-`.
    static func rangeStart(_ header: String) -> Int? {
        guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
        return Int(header.dropFirst(6).dropLast())
    }
}
