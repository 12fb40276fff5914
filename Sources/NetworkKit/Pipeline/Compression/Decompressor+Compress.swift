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
        let stream = try deflater(coding: coding, level: level)
        let result = data.withUnsafeBytes { input in
            Result { () throws(ZlibFailure) -> Data in
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

extension Decompressor {
    /// Compresses the file at `source` into a new file at `destination` as gzip or (zlib-wrapped)
    /// deflate, 64 KiB at a time, so memory stays flat whatever the file's size.
    /// - Throws: `ParseError(parser: "compress")` for a level outside 0…9 or a zlib failure; the
    ///   file system's error when a file cannot be read or written.
    public static func compress(file source: URL, to destination: URL, coding: ContentCoding, level: Int = 6) throws {
        let deflater = try Deflater(coding: coding, level: level)
        let input = try FileHandle(forReadingFrom: source)
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        while true {
            let chunk = try input.read(upToCount: Deflater.pieceSize) ?? Data()
            let compressed = try deflater.compress(chunk, finishing: chunk.isEmpty)
            if !compressed.isEmpty { try output.write(contentsOf: compressed) }
            if chunk.isEmpty { return }
        }
    }

    /// A deflating stream writing `coding`'s wrapper at `level`.
    /// - Throws: `ParseError(parser: "compress")` for a level outside 0…9 or a zlib failure.
    fileprivate static func deflater(coding: ContentCoding, level: Int) throws -> ZlibStream {
        guard (0...9).contains(level) else {
            throw ParseError(parser: "compress", reason: "compression level \(level) is outside 0...9")
        }
        do {
            return try ZlibStream(deflateLevel: Int32(level), windowBits: (coding == .gzip ? Wrapper.gzip : .zlib).rawValue)
        } catch {
            throw ParseError(parser: "compress", reason: "\(coding.rawValue) compression failed: \(error)")
        }
    }
}

/// Compresses a body piece by piece as gzip or (zlib-wrapped) deflate: what a file or a
/// streamed request body is sent as under ``AnyRequest/bodyEncoding``. Used by one task at a time.
final class Deflater {
    /// The size of the pieces read and written.
    static let pieceSize = 64 * 1024
    private let stream: ZlibStream
    private var buffer = [UInt8](repeating: 0, count: Deflater.pieceSize)

    /// A deflater writing `coding`'s wrapper at `level`.
    /// - Throws: `ParseError(parser: "compress")` for a level outside 0…9 or a zlib failure.
    init(coding: ContentCoding, level: Int = 6) throws {
        stream = try Decompressor.deflater(coding: coding, level: level)
    }

    /// The compressed bytes `chunk` adds (often none: zlib holds input back); when `finishing`,
    /// everything left and the stream's end.
    /// - Throws: `ParseError(parser: "compress")` for a zlib failure.
    func compress(_ chunk: Data, finishing: Bool) throws -> Data {
        var output = Data()
        let flush = finishing ? Z_FINISH : Z_NO_FLUSH
        try chunk.withUnsafeBytes { bytes in
            let z = stream.stream
            z.pointee.next_in = UnsafeMutablePointer(mutating: bytes.bindMemory(to: Bytef.self).baseAddress)
            z.pointee.avail_in = UInt32(bytes.count)
            var finished = false
            repeat {
                let (status, produced) = buffer.withUnsafeMutableBytes { out in
                    z.pointee.next_out = out.bindMemory(to: Bytef.self).baseAddress
                    z.pointee.avail_out = UInt32(out.count)
                    let status = deflate(z, flush)
                    return (status, out.count - Int(z.pointee.avail_out))
                }
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                    throw ParseError(parser: "compress", reason: stream.message(or: "deflate status \(status)"))
                }
                if produced > 0 { output.append(contentsOf: buffer[..<produced]) }
                finished = status == Z_STREAM_END
                // Until deflate leaves room in the output (it took all the input), or, at the
                // end, until it has written the stream's end.
            } while finishing ? !finished : z.pointee.avail_out == 0
        }
        return output
    }
}

extension NetworkError {
    /// The failure of compressing a request body as `coding`: the request is not sent.
    static func bodyCompressionFailed(_ coding: ContentCoding, _ error: any Error) -> NetworkError {
        .invalidRequest("cannot \(coding.rawValue)-compress the body: \(error)")
    }
}

extension RequestBodyStream {
    /// The same body compressed as `coding` as it is sent: made again as often as this one is,
    /// of unknown length.
    package func compressed(_ coding: ContentCoding) -> RequestBodyStream {
        let chunks = DeflatedChunks(source: self, coding: coding)
        return isRepeatable ? RequestBodyStream(repeating: { chunks }) : RequestBodyStream(chunks)
    }
}

/// A streamed body's chunks compressed as they are read.
private struct DeflatedChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let source: RequestBodyStream
    let coding: ContentCoding

    func makeAsyncIterator() -> Iterator {
        Iterator(source: source, coding: coding)
    }

    struct Iterator: AsyncIteratorProtocol {
        let source: RequestBodyStream
        let coding: ContentCoding
        private var reader: RequestBodyStream.Reader?
        private var deflater: Deflater?
        private var finished = false

        init(source: RequestBodyStream, coding: ContentCoding) {
            self.source = source
            self.coding = coding
        }

        mutating func next() async throws -> Data? {
            if reader == nil {
                reader = try source.makeReader()
                do {
                    deflater = try Deflater(coding: coding)
                } catch {
                    throw NetworkError.bodyCompressionFailed(coding, error)
                }
            }
            guard var current = reader, let deflater else { return nil }
            defer { reader = current }
            while !finished {
                let chunk = try await current.next()
                finished = chunk == nil
                let compressed: Data
                do {
                    compressed = try deflater.compress(chunk ?? Data(), finishing: finished)
                } catch {
                    throw NetworkError.bodyCompressionFailed(coding, error)
                }
                if !compressed.isEmpty { return compressed }
            }
            return nil
        }
    }
}
