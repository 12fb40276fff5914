import CZlib
import Foundation

extension Decompressor {
    /// Compresses a request body as gzip or (zlib-wrapped) deflate.
    /// - Parameters:
    ///   - data: the bytes to compress.
    ///   - coding: gzip, or deflate in its zlib wrapper.
    ///   - level: 0 (store) … 9 (smallest); 6 is zlib's default trade-off.
    /// - Throws: `ParseError(parser: "compress")` for a level outside 0…9 or a zlib failure.
    public static func compress(_ data: Data, coding: ContentCoding, level: Int = 6) throws -> Data {
        guard (0...9).contains(level) else {
            throw ParseError(parser: "compress", reason: "compression level \(level) is outside 0...9")
        }
        let wrapper: Wrapper = coding == .gzip ? .gzip : .zlib
        let result = data.withUnsafeBytes { input in
            Result { () throws(ZlibFailure) -> Data in
                let stream = try ZlibStream(deflateLevel: Int32(level), windowBits: wrapper.rawValue)
                let bound = Int(clamping: deflateBound(stream.stream, uLong(input.count)))
                return try stream.run(input: input, initialCapacity: bound, limit: Int.max) { z in
                    switch deflate(z, Z_FINISH) {
                    case Z_STREAM_END: return .finished
                    case Z_OK, Z_BUF_ERROR: return .more
                    case let status: return .failed(.corrupt(stream.message(or: "deflate status \(status)")))
                    }
                }
            }
        }
        do {
            return try result.get()
        } catch {
            throw ParseError(parser: "compress", reason: "\(coding.rawValue) compression failed: \(error)")
        }
    }
}
