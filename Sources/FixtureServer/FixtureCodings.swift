import CBrotli
import CZlib
import CZstd
import Foundation
import NIOCore

/// The fixture's content codings, written on zlib, libbrotli and libzstd directly (not on the
/// kit's encoders), so the kit's decoders read what another writer made: whole bodies, bombs of
/// zeros, and streams flushed piece by piece.
public enum FixtureCoding: String, Sendable, CaseIterable {
    case gzip
    /// zlib-wrapped deflate.
    case deflate
    /// Raw deflate, sent as `deflate` as some servers do.
    case rawdeflate
    case br
    case zstd

    /// The `Content-Encoding` it is sent as.
    public var headerValue: String {
        self == .rawdeflate ? "deflate" : rawValue
    }

    /// `data` compressed whole (zlib and zstd at level 6, brotli at quality 6).
    public func compress(_ data: Data) -> Data {
        switch self {
        case .gzip: FixtureZlib.compress(data, windowBits: 31)
        case .deflate: FixtureZlib.compress(data, windowBits: 15)
        case .rawdeflate: FixtureZlib.compress(data, windowBits: -15)
        case .br, .zstd: Self.compressStreaming(data, coding: self)
        }
    }

    private static func compressStreaming(_ data: Data, coding: FixtureCoding) -> Data {
        guard let encoder = try? FlushingEncoder(coding) else { return Data() }
        var buffer = encoder.write(Array(data), end: true)
        return Data(buffer.readBytes(length: buffer.readableBytes) ?? [])
    }

    /// `megabytes` MiB of zeros in this coding: a bomb, a few KB on the wire. Made once per
    /// coding and size, and kept.
    public func zeros(megabytes: Int) -> Data {
        Made.body(.init(coding: self, kind: "zeros", count: megabytes)) { makeZeros(megabytes: megabytes) }
    }

    /// A JSON array of `count` items (`{"id": N, "name": "item N", "tags": ["a", "b"]}`, about 50
    /// bytes each) in this coding. Made once per coding and count, and kept.
    public func items(_ count: Int) -> Data {
        Made.body(.init(coding: self, kind: "items", count: count)) { compress(Self.plainItems(count)) }
    }

    /// The same JSON array of `count` items, not encoded (`/compressed/identity`). Made once per
    /// count, and kept.
    public static func plainItems(_ count: Int) -> Data {
        Made.body(.init(coding: nil, kind: "items", count: count)) {
            let items = (0..<count).map { #"{"id": \#($0), "name": "item \#($0)", "tags": ["a", "b"]}"# }
            return Data(("[" + items.joined(separator: ",") + "]").utf8)
        }
    }

    private func makeZeros(megabytes: Int) -> Data {
        guard let encoder = try? FlushingEncoder(self, level: 9) else { return Data() }
        let block = [UInt8](repeating: 0, count: 1024 * 1024)
        var output = Data()
        for index in 0..<max(megabytes, 1) {
            var buffer = encoder.write(block, end: index == max(megabytes, 1) - 1, flushing: false)
            output.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        }
        return output
    }

    /// The bodies made so far, kept for the next request of the same.
    private enum Made {
        struct Key: Hashable {
            /// nil for a body sent as it is.
            let coding: FixtureCoding?
            let kind: String
            let count: Int
        }
        static let lock = NSLock()
        nonisolated(unsafe) static var bodies: [Key: Data] = [:]  // guarded by `lock`

        static func body(_ key: Key, make: () -> Data) -> Data {
            if let data = lock.withLock({ bodies[key] }) { return data }
            let data = make()   // outside the lock: making one body may need another (plainItems)
            return lock.withLock {
                if let made = bodies[key] { return made }
                bodies[key] = data
                return data
            }
        }
    }
}

/// A compressing stream that can flush what it was given, so each piece of a streamed body
/// (an event) arrives whole without waiting for the end: zlib's `Z_SYNC_FLUSH`, brotli's
/// `BROTLI_OPERATION_FLUSH`, zstd's `ZSTD_e_flush`.
///
/// `@unchecked Sendable`: a response body writer owns it and uses it from one task at a time;
/// no lock, as nothing else reaches it.
final class FlushingEncoder: @unchecked Sendable {
    private enum State {
        case zlib(UnsafeMutablePointer<z_stream>)
        case brotli(OpaquePointer)
        case zstd(OpaquePointer)
    }

    private let state: State
    private var block = [UInt8](repeating: 0, count: 64 * 1024)

    /// An encoder of `coding` at `level` (zlib 0…9, brotli 0…11, zstd 1…19).
    init(_ coding: FixtureCoding, level: Int32 = 6) throws {
        switch coding {
        case .gzip, .deflate, .rawdeflate:
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let windowBits: Int32 = coding == .gzip ? 31 : coding == .deflate ? 15 : -15
            guard deflateInit2_(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
                                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                stream.deallocate()
                throw FixtureFault.compressionFailed
            }
            state = .zlib(stream)
        case .br:
            guard let encoder = BrotliEncoderCreateInstance(nil, nil, nil) else { throw FixtureFault.compressionFailed }
            BrotliEncoderSetParameter(encoder, BROTLI_PARAM_QUALITY, UInt32(level))
            state = .brotli(encoder)
        case .zstd:
            guard let context = ZSTD_createCCtx() else { throw FixtureFault.compressionFailed }
            ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
            // As the zstd tool writes frames: with a checksum, so a spoiled body fails to decode.
            ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
            state = .zstd(context)
        }
    }

    deinit {
        switch state {
        case .zlib(let stream):
            deflateEnd(stream)
            stream.deallocate()
        case .brotli(let encoder):
            BrotliEncoderDestroyInstance(encoder)
        case .zstd(let context):
            ZSTD_freeCCtx(context)
        }
    }

    /// The compressed bytes of `bytes`: with `end`, everything and the stream's end; else, when
    /// `flushing`, everything given so far; else what the encoder lets out.
    func write(_ bytes: [UInt8], end: Bool = false, flushing: Bool = true) -> ByteBuffer {
        var output = ByteBuffer()
        bytes.withUnsafeBufferPointer { source in
            block.withUnsafeMutableBufferPointer { target in
                guard let out = target.baseAddress else { return }
                var none: UInt8 = 0
                withUnsafeMutablePointer(to: &none) { empty in
                    let input = source.baseAddress ?? UnsafePointer(empty)
                    switch state {
                    case .zlib(let stream):
                        let flush = end ? Z_FINISH : flushing ? Z_SYNC_FLUSH : Z_NO_FLUSH
                        stream.pointee.next_in = UnsafeMutablePointer(mutating: input)
                        stream.pointee.avail_in = UInt32(source.count)
                        var status: Int32
                        repeat {
                            stream.pointee.next_out = out
                            stream.pointee.avail_out = UInt32(target.count)
                            status = deflate(stream, flush)
                            output.writeBytes(UnsafeBufferPointer(start: out, count: target.count - Int(stream.pointee.avail_out)))
                        } while stream.pointee.avail_out == 0 || (end && status == Z_OK)
                    case .brotli(let encoder):
                        let operation = end ? BROTLI_OPERATION_FINISH : flushing ? BROTLI_OPERATION_FLUSH : BROTLI_OPERATION_PROCESS
                        var availableIn = source.count
                        var nextIn: UnsafePointer<UInt8>? = input
                        while true {
                            var availableOut = target.count
                            var nextOut: UnsafeMutablePointer<UInt8>? = out
                            guard BrotliEncoderCompressStream(encoder, operation, &availableIn, &nextIn,
                                                              &availableOut, &nextOut, nil) == BROTLI_TRUE else { return }
                            output.writeBytes(UnsafeBufferPointer(start: out, count: target.count - availableOut))
                            let more = BrotliEncoderHasMoreOutput(encoder) == BROTLI_TRUE
                            if end ? BrotliEncoderIsFinished(encoder) == BROTLI_TRUE : availableIn == 0 && !more { return }
                        }
                    case .zstd(let context):
                        let directive = end ? ZSTD_e_end : flushing ? ZSTD_e_flush : ZSTD_e_continue
                        var inBuffer = ZSTD_inBuffer(src: input, size: source.count, pos: 0)
                        while true {
                            var outBuffer = ZSTD_outBuffer(dst: out, size: target.count, pos: 0)
                            let remaining = ZSTD_compressStream2(context, &outBuffer, &inBuffer, directive)
                            guard ZSTD_isError(remaining) == 0 else { return }
                            output.writeBytes(UnsafeBufferPointer(start: out, count: outBuffer.pos))
                            let done = directive == ZSTD_e_continue ? inBuffer.pos == inBuffer.size : remaining == 0
                            if done { return }
                        }
                    }
                }
            }
        }
        return output
    }
}
