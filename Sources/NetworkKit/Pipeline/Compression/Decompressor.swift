import CZlib
import Foundation

/// The content codings for HTTP bodies (gzip, deflate, brotli, zstd): bounded, stream-wise
/// inflating of responses and compressing of request bodies.
///
/// Inflating never holds more than `limit + 1` output bytes, so a bomb fails with a
/// `ParseError` instead of exhausting memory.
package enum Decompressor {
    /// The wire formats zlib reads, chosen by `windowBits`.
    enum Wrapper: Int32 {
        case gzip = 31   // 16 + 15
        case zlib = 15
        case raw = -15
    }

    /// Inflates a whole body, refusing to produce more than `limit` bytes.
    ///
    /// gzip accepts several concatenated members (as `gzip` itself writes them), zstd several
    /// frames. deflate accepts zlib-wrapped data and falls back to raw deflate, since servers send both.
    /// - Throws: `ParseError(parser: "decompress")` when the output would exceed `limit`
    ///   or the stream is truncated or corrupt.
    package static func inflate(_ data: Data, coding: ContentCoding, limit: Int) throws -> Data {
        do {
            return try inflateReportingFailure(data, coding: coding, limit: limit)
        } catch {
            throw parseError(error, coding: coding)
        }
    }

    /// `inflate(_:coding:limit:)` with zlib's own failure, for callers that decide what to do with it.
    static func inflateReportingFailure(_ data: Data, coding: ContentCoding, limit: Int) throws(CodingFailure) -> Data {
        switch coding {
        case .gzip:
            return try inflate(data, wrapper: .gzip, limit: limit)
        case .brotli, .zstd:
            return try inflateStreaming(data, coding: coding, limit: limit)
        case .deflate:
            guard hasZlibHeader(data) else { return try inflate(data, wrapper: .raw, limit: limit) }
            do {
                return try inflate(data, wrapper: .zlib, limit: limit)
            } catch CodingFailure.limitExceeded(let limit) {
                throw .limitExceeded(limit)
            } catch {
                // A raw stream can start with two bytes that pass the zlib header check.
                do {
                    return try inflate(data, wrapper: .raw, limit: limit)
                } catch CodingFailure.limitExceeded(let limit) {
                    throw .limitExceeded(limit)
                } catch _ {
                    throw error
                }
            }
        }
    }

    /// Inflates `data` through the coding's streaming decoder, collecting at most `limit` bytes.
    private static func inflateStreaming(_ data: Data, coding: ContentCoding, limit: Int) throws(CodingFailure) -> Data {
        var output = Data()
        let result = data.withUnsafeBytes { input in
            Result { () throws -> Void in
                let decoder = try coding.makeDecoder()
                let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
                defer { scratch.deallocate() }
                if !input.isEmpty {
                    try decoder.decode(input, scratch: scratch) { piece in
                        guard output.count + piece.count <= limit else { throw CodingFailure.limitExceeded(limit) }
                        output.append(contentsOf: piece)
                    }
                }
                if !decoder.isAtEnd { throw CodingFailure.truncated }
            }
        }
        do {
            try result.get()
        } catch let failure as CodingFailure {
            throw failure
        } catch {
            throw .corrupt("\(error)")
        }
        return output
    }

    /// Inflates `data` in one `wrapper`.
    static func inflate(_ data: Data, wrapper: Wrapper, limit: Int) throws(CodingFailure) -> Data {
        let result = data.withUnsafeBytes { input in
            Result { () throws(CodingFailure) -> Data in
                let stream = try ZlibStream(inflateWindowBits: wrapper.rawValue)
                let guess = input.count < Int.max / 4 ? max(input.count * 4, 16 * 1024) : Int.max
                return try stream.run(input: input, initialCapacity: guess, limit: limit) { z in
                    step(z, wrapper: wrapper, stream: stream)
                }
            }
        }
        return try result.get()
    }

    /// One `inflate` call, and what it means for the loop.
    private static func step(_ z: UnsafeMutablePointer<z_stream>, wrapper: Wrapper, stream: ZlibStream) -> ZlibStep {
        let status = CZlib.inflate(z, Z_NO_FLUSH)
        switch status {
        case Z_OK:
            return .more
        case Z_STREAM_END:
            return afterEnd(z, wrapper: wrapper)
        case Z_BUF_ERROR:
            // No progress possible: either the output is full (the driver grows it) or the input ran out.
            return z.pointee.avail_in == 0 && z.pointee.avail_out > 0 ? .failed(.truncated) : .more
        case Z_NEED_DICT:
            return .failed(.corrupt("the stream needs a preset dictionary"))
        case Z_MEM_ERROR:
            return .failed(.corrupt("zlib ran out of memory"))
        default:
            return .failed(.corrupt(stream.message(or: "zlib status \(status)")))
        }
    }

    /// At the end of a stream: start the next gzip member, accept zero padding, or reject trailing bytes.
    private static func afterEnd(_ z: UnsafeMutablePointer<z_stream>, wrapper: Wrapper) -> ZlibStep {
        let remaining = Int(z.pointee.avail_in)
        guard remaining > 0, let next = z.pointee.next_in else { return .finished }
        let rest = UnsafeBufferPointer(start: next, count: remaining)
        if wrapper == .gzip, remaining >= 2, rest[0] == 0x1f, rest[1] == 0x8b {
            return inflateReset(z) == Z_OK ? .more : .failed(.corrupt("cannot start the next gzip member"))
        }
        if rest.allSatisfy({ $0 == 0 }) { return .finished }
        return .failed(.corrupt("\(remaining) unexpected bytes after the end of the compressed data"))
    }

    /// True when the first two bytes form a valid zlib (RFC 1950) header with deflate and no dictionary.
    static func hasZlibHeader(_ data: Data) -> Bool {
        guard data.count >= 2 else { return false }
        let cmf = Int(data[data.startIndex]), flg = Int(data[data.startIndex + 1])
        return cmf & 0x0f == 8 && cmf >> 4 <= 7 && (cmf << 8 | flg) % 31 == 0 && flg & 0x20 == 0
    }

    /// The `ParseError` a failure is reported as.
    static func parseError(_ error: CodingFailure, coding: ContentCoding) -> ParseError {
        let name = coding.name
        let reason: String
        var kind = ParseError.Kind.malformed
        switch error {
        case .limitExceeded(let limit):
            reason = "decompressed size exceeds limit of \(limit) bytes"
            kind = .limit
        case .truncated:
            reason = "truncated \(name) stream: the data ended before the end of the compressed stream"
        case .corrupt(let message):
            reason = "corrupt \(name) stream: \(message)"
        case .inputTooLarge:
            reason = "\(name) input larger than 4 GiB"
        }
        return ParseError(parser: "decompress", reason: reason, kind: kind)
    }
}
