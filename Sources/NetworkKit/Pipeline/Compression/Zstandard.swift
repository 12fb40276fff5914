import CZstd
import Foundation

/// Zstandard (RFC 8878, `Content-Encoding: zstd`) through libzstd: a response body decoded piece
/// by piece, a request body encoded the same way. As RFC 9659 asks of HTTP, the decoder refuses
/// a frame whose window is larger than 8 MiB, so a hostile frame cannot make it reserve more; it
/// reads concatenated frames one after another.
final class ZstdDecoder: StreamDecoding {
    /// The largest window a frame may ask for, as a power of two (8 MiB, RFC 9659).
    static let windowLogMax: Int32 = 23
    private let context: OpaquePointer
    /// True once a frame was decoded to its end and nothing of the next one was read.
    private var frameEnded = false

    init() throws(CodingFailure) {
        guard let context = ZSTD_createDCtx() else { throw .corrupt("libzstd could not make a decoder") }
        self.context = context
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.windowLogMax)) == 0 else {
            throw .corrupt("libzstd refused the window limit")
        }
    }

    deinit {
        ZSTD_freeDCtx(context)
    }

    var isAtEnd: Bool { frameEnded }

    func decode(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while source.pos < source.size || !frameEnded {
            let rest = UnsafeRawBufferPointer(rebasing: input[source.pos...])
            // Zero padding after a frame, where the next frame's magic number would be.
            if frameEnded, rest.first == 0 { return try checkPadding(rest) }
            var target = ZSTD_outBuffer(dst: scratch.baseAddress, size: scratch.count, pos: 0)
            let hint = ZSTD_decompressStream(context, &target, &source)
            if ZSTD_isError(hint) != 0 {
                throw CodingFailure.corrupt("libzstd: \(String(cString: ZSTD_getErrorName(hint)))")
            }
            if target.pos > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<target.pos])) }
            frameEnded = hint == 0
            // All input read and room left over: nothing is held back.
            if source.pos == source.size && target.pos < target.size { return }
        }
    }
}

/// A zstd encoder at a level of 1 to 19 (at most an 8 MiB window, which RFC 9659 lets every
/// HTTP decoder read), each frame with its checksum, so a damaged body fails to decode.
final class ZstdEncoder: StreamEncoding {
    private let context: OpaquePointer

    init(level: Int) throws(CodingFailure) {
        guard let context = ZSTD_createCCtx() else { throw .corrupt("libzstd could not make an encoder") }
        self.context = context
        guard ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Int32(level))) == 0,
              ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)) == 0 else {
            throw .corrupt("libzstd refused the level \(level)")
        }
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    func encode(_ input: UnsafeRawBufferPointer, finishing: Bool, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        let directive = finishing ? ZSTD_e_end : ZSTD_e_continue
        while true {
            var target = ZSTD_outBuffer(dst: scratch.baseAddress, size: scratch.count, pos: 0)
            let remaining = ZSTD_compressStream2(context, &target, &source, directive)
            if ZSTD_isError(remaining) != 0 {
                throw CodingFailure.corrupt("libzstd: \(String(cString: ZSTD_getErrorName(remaining)))")
            }
            if target.pos > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<target.pos])) }
            if finishing ? remaining == 0 : source.pos == source.size { return }
        }
    }
}
