import CZlib
import Foundation

extension Decompressor {
    /// Compresses a request body as `coding`.
    /// - Parameters:
    ///   - data: the bytes to compress.
    ///   - coding: gzip, deflate in its zlib wrapper, brotli or zstd.
    ///   - level: the coding's level (``ContentCoding/levels``); 6 suits each: zlib's default trade-off.
    /// - Throws: `ParseError(parser: "compress")` for a level outside the coding's range or a
    ///   library's failure.
    public static func compress(_ data: Data, coding: ContentCoding, level: Int = 6) throws -> Data {
        guard coding == .gzip || coding == .deflate else {
            return try Deflater(coding: coding, level: level).compress(data, finishing: true)
        }
        let stream = try deflater(coding: coding, level: level)
        let result = data.withUnsafeBytes { input in
            Result { () throws(CodingFailure) -> Data in
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
            throw compressionError(error, coding: coding)
        }
    }
}

extension Decompressor {
    /// Compresses the file at `source` into a new file at `destination` as `coding`, 64 KiB at a
    /// time, so memory stays flat whatever the file's size.
    /// - Throws: `ParseError(parser: "compress")` for a level outside the coding's range or a
    ///   library's failure; the file system's error when a file cannot be read or written.
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

    /// A deflating zlib stream writing `coding`'s wrapper (gzip or zlib) at `level`.
    /// - Throws: `ParseError(parser: "compress")` for a level outside 0…9 or a zlib failure.
    fileprivate static func deflater(coding: ContentCoding, level: Int) throws -> ZlibStream {
        try checkLevel(level, coding: coding)
        do {
            return try ZlibStream(deflateLevel: Int32(level), windowBits: (coding == .gzip ? Wrapper.gzip : .zlib).rawValue)
        } catch {
            throw compressionError(error, coding: coding)
        }
    }

    /// - Throws: `ParseError(parser: "compress")` when `level` is outside `coding`'s range.
    fileprivate static func checkLevel(_ level: Int, coding: ContentCoding) throws {
        guard coding.levels.contains(level) else {
            throw ParseError(parser: "compress", reason: "\(coding.name) compression level \(level) is outside \(coding.levels)")
        }
    }

    fileprivate static func compressionError(_ error: any Error, coding: ContentCoding) -> ParseError {
        ParseError(parser: "compress", reason: "\(coding.name) compression failed: \(error)")
    }
}

/// One coding's streaming encoder. Its failures are `CodingFailure`s; what `deliver` throws
/// passes through.
protocol StreamEncoding: AnyObject {
    /// Compresses all of `input`, filling `scratch` and handing each filled part to `deliver`
    /// (often none: an encoder holds input back); when `finishing`, also everything held back
    /// and the stream's end.
    func encode(_ input: UnsafeRawBufferPointer, finishing: Bool, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws
}

extension ContentCoding {
    /// A streaming encoder of this coding at `level`, which is in `levels`.
    /// The streaming encoder of this coding at `level`, which the caller has checked.
    fileprivate func makeEncoder(level: Int) throws(CodingFailure) -> any StreamEncoding {
        switch self {
        case .gzip, .deflate:
            let wrapper = self == .gzip ? Decompressor.Wrapper.gzip : .zlib
            return ZlibEncoder(stream: try ZlibStream(deflateLevel: Int32(level), windowBits: wrapper.rawValue))
        case .brotli: return try BrotliEncoder(level: level)
        case .zstd: return try ZstdEncoder(level: level)
        }
    }
}

/// Compresses a body piece by piece as one coding: what a file or a streamed request body is sent
/// as under ``AnyRequest/bodyEncoding``. Used by one task at a time.
final class Deflater {
    /// The size of the pieces read and written.
    static let pieceSize = 64 * 1024
    private let coding: ContentCoding
    private let encoder: any StreamEncoding
    private var scratch: UnsafeMutableRawBufferPointer

    /// A deflater writing `coding` at `level`.
    /// - Throws: `ParseError(parser: "compress")` for a level outside the coding's range or a
    ///   library's failure.
    init(coding: ContentCoding, level: Int = 6) throws {
        try Decompressor.checkLevel(level, coding: coding)
        self.coding = coding
        do {
            encoder = try coding.makeEncoder(level: level)
        } catch {
            throw Decompressor.compressionError(error, coding: coding)
        }
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Deflater.pieceSize, alignment: 1)
    }

    deinit {
        scratch.deallocate()
    }

    /// The compressed bytes `chunk` adds (often none: an encoder holds input back); when
    /// `finishing`, everything left and the stream's end.
    /// - Throws: `ParseError(parser: "compress")` for a library's failure.
    func compress(_ chunk: Data, finishing: Bool) throws -> Data {
        var output = Data()
        do {
            try chunk.withUnsafeBytes { input in
                try encoder.encode(input, finishing: finishing, scratch: scratch) { output.append(contentsOf: $0) }
            }
        } catch {
            throw Decompressor.compressionError(error, coding: coding)
        }
        return output
    }
}

/// gzip and deflate through zlib.
private final class ZlibEncoder: StreamEncoding {
    private let stream: ZlibStream

    init(stream: ZlibStream) {
        self.stream = stream
    }

    func encode(_ input: UnsafeRawBufferPointer, finishing: Bool, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard input.count <= Int(UInt32.max) else { throw CodingFailure.inputTooLarge }
        let flush = finishing ? Z_FINISH : Z_NO_FLUSH
        let z = stream.stream
        z.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        z.pointee.avail_in = UInt32(input.count)
        var finished = false
        repeat {
            z.pointee.next_out = scratch.bindMemory(to: Bytef.self).baseAddress
            z.pointee.avail_out = UInt32(scratch.count)
            let status = deflate(z, flush)
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw CodingFailure.corrupt(stream.message(or: "deflate status \(status)"))
            }
            let produced = scratch.count - Int(z.pointee.avail_out)
            if produced > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<produced])) }
            finished = status == Z_STREAM_END
            // Until deflate leaves room in the output (it took all the input), or, at the end,
            // until it has written the stream's end.
        } while finishing ? !finished : z.pointee.avail_out == 0
    }
}

extension NetworkError {
    /// The failure of compressing a request body as `coding`: the request is not sent.
    static func bodyCompressionFailed(_ coding: ContentCoding, _ error: any Error) -> NetworkError {
        .invalidRequest("cannot \(coding.name)-compress the body: \(error)")
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
