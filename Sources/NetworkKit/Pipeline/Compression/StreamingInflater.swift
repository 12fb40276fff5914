import CZlib
import Foundation

/// Decodes a response body piece by piece as it arrives, in any coding the kit reads (gzip,
/// deflate, brotli, zstd), handing on the output in pieces of at most `pieceSize` bytes. A
/// transport that receives encoded bytes (the SwiftNIO one) decodes with it, so memory holds one
/// piece however far a body inflates, and the request's size limit, counted on what is handed
/// on, stops a bomb early.
///
/// gzip accepts concatenated members and zstd concatenated frames; deflate takes a zlib-wrapped
/// stream, or a raw one when the first two bytes are no zlib header. Zero padding after the end
/// is skipped; any other byte after it is corrupt. One inflater decodes one body; it is not
/// thread-safe.
package final class StreamingInflater {
    /// The coding it decodes.
    package let coding: ContentCoding
    /// The most bytes one delivered piece holds.
    package let pieceSize: Int
    private var decoder: (any StreamDecoding)?
    private var scratch: UnsafeMutableRawBufferPointer

    /// An inflater for `coding` delivering pieces of at most `pieceSize` bytes (64 KiB by default).
    package init(coding: ContentCoding, pieceSize: Int = 64 * 1024) {
        self.coding = coding
        self.pieceSize = max(pieceSize, 1024)
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: self.pieceSize, alignment: 1)
    }

    deinit {
        scratch.deallocate()
    }

    /// Feeds the next compressed bytes, calling `deliver` with each inflated piece as it is made.
    /// An error thrown by `deliver` stops inflating and is rethrown.
    /// - Throws: `ParseError(parser: "decompress")` naming the coding when the data is corrupt.
    package func inflate(_ input: UnsafeRawBufferPointer, deliver: (Data) throws -> Void) throws {
        guard !input.isEmpty else { return }
        do {
            let decoder = try self.decoder ?? coding.makeDecoder()
            self.decoder = decoder
            try decoder.decode(input, scratch: scratch) { try deliver(Data($0)) }
        } catch let failure as CodingFailure {
            throw Decompressor.parseError(failure, coding: coding)
        }
    }

    /// `inflate(_:deliver:)` for bytes in a `Data`.
    package func inflate(_ input: Data, deliver: (Data) throws -> Void) throws {
        try input.withUnsafeBytes { try inflate($0, deliver: deliver) }
    }

    /// Says the body is complete. An empty body is complete.
    /// - Throws: `ParseError(parser: "decompress")` when the compressed stream has not ended.
    package func finish() throws {
        if let decoder, !decoder.isAtEnd {
            throw Decompressor.parseError(.truncated, coding: coding)
        }
    }
}

/// One coding's streaming decoder: compressed bytes in, decoded bytes out, piece by piece. Its
/// failures are `CodingFailure`s; what `deliver` throws passes through.
protocol StreamDecoding: AnyObject {
    /// Decodes all of `input`, filling `scratch` and handing each filled part to `deliver`.
    func decode(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws
    /// True when the compressed data may end here: a whole stream (or member, or frame) decoded.
    var isAtEnd: Bool { get }
}

extension ContentCoding {
    /// A streaming decoder of this coding.
    func makeDecoder() throws(CodingFailure) -> any StreamDecoding {
        switch self {
        case .gzip, .deflate: ZlibDecoder(coding: self)
        case .brotli: try BrotliDecoder()
        case .zstd: try ZstdDecoder()
        }
    }
}

/// The check after a stream's end shared by the decoders: zero padding is skipped, anything else
/// is corrupt.
func checkPadding(_ rest: UnsafeRawBufferPointer) throws(CodingFailure) {
    guard rest.allSatisfy({ $0 == 0 }) else {
        throw .corrupt("\(rest.count) unexpected bytes after the end of the compressed data")
    }
}

/// gzip and deflate through zlib: gzip's members one after another; deflate's wrapper (zlib or
/// raw) told by its first two bytes.
final class ZlibDecoder: StreamDecoding {
    private let coding: ContentCoding
    private var stream: ZlibStream?
    private var wrapper: Decompressor.Wrapper?
    /// The first byte of a deflate body, kept until the second tells zlib from raw.
    private var firstByte: UInt8?
    /// True after the end of a compressed stream: only another gzip member or zero padding may follow.
    private var ended = false

    init(coding: ContentCoding) {
        self.coding = coding
    }

    var isAtEnd: Bool {
        firstByte == nil && (stream == nil || ended)
    }

    func decode(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        if stream == nil {
            guard let started = try start(with: input, scratch: scratch, deliver: deliver) else { return }
            return try run(started, scratch: scratch, deliver: deliver)
        }
        try run(input, scratch: scratch, deliver: deliver)
    }

    /// Opens the zlib stream once the wrapper is known; returns the input still to inflate, or
    /// nil when a deflate body's first byte alone arrived.
    private func start(with input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                       deliver: (UnsafeRawBufferPointer) throws -> Void) throws -> UnsafeRawBufferPointer? {
        let wrapper: Decompressor.Wrapper
        if coding == .deflate {
            guard let first = firstByte ?? input.first else { return nil }
            if firstByte == nil, input.count < 2 {
                firstByte = first
                return nil
            }
            let second = firstByte == nil ? input[1] : input[0]
            wrapper = Decompressor.hasZlibHeader(Data([first, second])) ? .zlib : .raw
        } else {
            wrapper = .gzip
        }
        stream = try ZlibStream(inflateWindowBits: wrapper.rawValue)
        self.wrapper = wrapper
        if let first = firstByte {
            firstByte = nil
            try withUnsafeBytes(of: first) { try run($0, scratch: scratch, deliver: deliver) }
        }
        return input
    }

    /// Inflates all of `input`.
    private func run(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                     deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let stream, let base = input.baseAddress else { return }
        guard input.count <= Int(UInt32.max) else { throw CodingFailure.inputTooLarge }
        let z = stream.stream
        z.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        z.pointee.avail_in = UInt32(input.count)
        while true {
            if ended {
                guard z.pointee.avail_in > 0 else { return }
                try startNextMember(z)
                if ended { return }
            }
            z.pointee.next_out = scratch.baseAddress?.assumingMemoryBound(to: Bytef.self)
            z.pointee.avail_out = UInt32(scratch.count)
            let status = CZlib.inflate(z, Z_NO_FLUSH)
            let produced = scratch.count - Int(z.pointee.avail_out)
            if produced > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<produced])) }
            switch status {
            case Z_STREAM_END:
                ended = true
            case Z_OK, Z_BUF_ERROR:
                // Done with this input once it is used up and zlib had room to spare (nothing pending).
                if z.pointee.avail_in == 0 && z.pointee.avail_out > 0 { return }
            case Z_NEED_DICT:
                throw CodingFailure.corrupt("the stream needs a preset dictionary")
            default:
                throw CodingFailure.corrupt(stream.message(or: "zlib status \(status)"))
            }
        }
    }

    /// After a stream's end: a gzip body may go on with another member; zero padding is skipped;
    /// anything else is corrupt.
    private func startNextMember(_ z: UnsafeMutablePointer<z_stream>) throws(CodingFailure) {
        guard let next = z.pointee.next_in else { return }
        if wrapper == .gzip, next.pointee == 0x1f {
            guard inflateReset(z) == Z_OK else { throw .corrupt("cannot start the next gzip member") }
            ended = false
            return
        }
        let count = Int(z.pointee.avail_in)
        try checkPadding(UnsafeRawBufferPointer(start: next, count: count))
        z.pointee.next_in = next + count
        z.pointee.avail_in = 0
    }
}
