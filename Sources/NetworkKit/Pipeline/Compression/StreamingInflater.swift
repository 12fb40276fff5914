import CZlib
import Foundation

/// Inflates a gzip or deflate body piece by piece as it arrives, handing on the output in pieces
/// of at most `pieceSize` bytes. A transport that receives compressed bytes (the SwiftNIO one)
/// decodes with it, so memory holds one piece however far a body inflates, and the request's size
/// limit, counted on what is handed on, stops a gzip bomb early.
///
/// gzip accepts concatenated members; deflate takes a zlib-wrapped stream, or a raw one when the
/// first two bytes are no zlib header. One inflater decodes one body; it is not thread-safe.
package final class StreamingInflater {
    /// The coding it decodes.
    package let coding: ContentCoding
    /// The most bytes one delivered piece holds.
    package let pieceSize: Int
    private var stream: ZlibStream?
    private var wrapper: Decompressor.Wrapper?
    /// The first byte of a deflate body, kept until the second tells zlib from raw.
    private var firstByte: UInt8?
    /// True after the end of a compressed stream: only another gzip member or zero padding may follow.
    private var ended = false
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
    /// - Throws: `ParseError(parser: "decompress")` when the data is corrupt.
    package func inflate(_ input: UnsafeRawBufferPointer, deliver: (Data) throws -> Void) throws {
        guard !input.isEmpty else { return }
        if stream == nil {
            guard let started = try start(with: input, deliver: deliver) else { return }
            return try run(started, deliver: deliver)
        }
        try run(input, deliver: deliver)
    }

    /// `inflate(_:deliver:)` for bytes in a `Data`.
    package func inflate(_ input: Data, deliver: (Data) throws -> Void) throws {
        try input.withUnsafeBytes { try inflate($0, deliver: deliver) }
    }

    /// Says the body is complete.
    /// - Throws: `ParseError(parser: "decompress")` when the compressed stream has not ended.
    package func finish() throws {
        if firstByte != nil || (stream != nil && !ended) {
            throw Decompressor.parseError(.truncated, coding: coding)
        }
    }

    /// Opens the zlib stream once the wrapper is known; returns the input still to inflate, or
    /// nil when a deflate body's first byte alone arrived.
    private func start(with input: UnsafeRawBufferPointer, deliver: (Data) throws -> Void) throws -> UnsafeRawBufferPointer? {
        let wrapper: Decompressor.Wrapper
        switch coding {
        case .gzip:
            wrapper = .gzip
        case .deflate:
            guard let first = firstByte ?? input.first else { return nil }
            if firstByte == nil, input.count < 2 {
                firstByte = first
                return nil
            }
            let second = firstByte == nil ? input[1] : input[0]
            wrapper = Decompressor.hasZlibHeader(Data([first, second])) ? .zlib : .raw
        }
        do {
            stream = try ZlibStream(inflateWindowBits: wrapper.rawValue)
        } catch {
            throw Decompressor.parseError(error, coding: coding)
        }
        self.wrapper = wrapper
        if let first = firstByte {
            firstByte = nil
            try withUnsafeBytes(of: first) { try run($0, deliver: deliver) }
        }
        return input
    }

    /// Inflates all of `input`.
    private func run(_ input: UnsafeRawBufferPointer, deliver: (Data) throws -> Void) throws {
        guard let stream, let base = input.baseAddress else { return }
        guard input.count <= Int(UInt32.max) else { throw Decompressor.parseError(.inputTooLarge, coding: coding) }
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
            if produced > 0 { try deliver(Data(UnsafeRawBufferPointer(rebasing: scratch[..<produced]))) }
            switch status {
            case Z_STREAM_END:
                ended = true
            case Z_OK, Z_BUF_ERROR:
                // Done with this input once it is used up and zlib had room to spare (nothing pending).
                if z.pointee.avail_in == 0 && z.pointee.avail_out > 0 { return }
            case Z_NEED_DICT:
                throw Decompressor.parseError(.corrupt("the stream needs a preset dictionary"), coding: coding)
            default:
                throw Decompressor.parseError(.corrupt(stream.message(or: "zlib status \(status)")), coding: coding)
            }
        }
    }

    /// After a stream's end: a gzip body may go on with another member; zero padding is skipped;
    /// anything else is corrupt.
    private func startNextMember(_ z: UnsafeMutablePointer<z_stream>) throws {
        guard let next = z.pointee.next_in else { return }
        if wrapper == .gzip, next.pointee == 0x1f {
            guard inflateReset(z) == Z_OK else {
                throw Decompressor.parseError(.corrupt("cannot start the next gzip member"), coding: coding)
            }
            ended = false
            return
        }
        let rest = UnsafeBufferPointer(start: next, count: Int(z.pointee.avail_in))
        guard rest.allSatisfy({ $0 == 0 }) else {
            throw Decompressor.parseError(.corrupt("\(rest.count) unexpected bytes after the end of the compressed data"),
                                          coding: coding)
        }
        z.pointee.next_in = next + rest.count
        z.pointee.avail_in = 0
    }
}
