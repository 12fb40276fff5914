import CBrotli
import Foundation

/// Brotli (RFC 7932, `Content-Encoding: br`) through libbrotli: a response body decoded piece by
/// piece, a request body encoded the same way. The decoder keeps brotli's standard window (at
/// most 16 MiB); the large-window extension, which no HTTP peer may send, is refused.
final class BrotliDecoder: StreamDecoding {
    private let state: OpaquePointer
    private var ended = false

    init() throws(CodingFailure) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw .corrupt("libbrotli could not make a decoder")
        }
        self.state = state
    }

    deinit {
        BrotliDecoderDestroyInstance(state)
    }

    var isAtEnd: Bool { ended }

    func decode(_ input: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !ended else { return try checkPadding(input) }
        guard let base = input.baseAddress, let out = scratch.baseAddress else { return }
        var availableIn = input.count
        var nextIn: UnsafePointer<UInt8>? = UnsafePointer(base.assumingMemoryBound(to: UInt8.self))
        while true {
            var availableOut = scratch.count
            var nextOut: UnsafeMutablePointer<UInt8>? = out.assumingMemoryBound(to: UInt8.self)
            let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            let produced = scratch.count - availableOut
            if produced > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<produced])) }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                ended = true
                return try checkPadding(UnsafeRawBufferPointer(start: nextIn, count: availableIn))
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            default:
                let code = BrotliDecoderGetErrorCode(state)
                throw CodingFailure.corrupt("libbrotli: \(String(cString: BrotliDecoderErrorString(code)))")
            }
        }
    }
}

/// A brotli encoder at a quality of 0 to 11, with brotli's default window (4 MiB).
final class BrotliEncoder: StreamEncoding {
    private let state: OpaquePointer

    init(level: Int) throws(CodingFailure) {
        guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else {
            throw .corrupt("libbrotli could not make an encoder")
        }
        self.state = state
        guard BrotliEncoderSetParameter(state, BROTLI_PARAM_QUALITY, UInt32(level)) == BROTLI_TRUE else {
            throw .corrupt("libbrotli refused the quality \(level)")
        }
    }

    deinit {
        BrotliEncoderDestroyInstance(state)
    }

    func encode(_ input: UnsafeRawBufferPointer, finishing: Bool, scratch: UnsafeMutableRawBufferPointer,
                deliver: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let out = scratch.baseAddress else { return }
        try withNonNullBase(input) { base in
            var availableIn = input.count
            var nextIn: UnsafePointer<UInt8>? = base
            let operation = finishing ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS
            while true {
                var availableOut = scratch.count
                var nextOut: UnsafeMutablePointer<UInt8>? = out.assumingMemoryBound(to: UInt8.self)
                guard BrotliEncoderCompressStream(state, operation, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    == BROTLI_TRUE else { throw CodingFailure.corrupt("libbrotli could not encode") }
                let produced = scratch.count - availableOut
                if produced > 0 { try deliver(UnsafeRawBufferPointer(rebasing: scratch[..<produced])) }
                let done = finishing ? BrotliEncoderIsFinished(state) == BROTLI_TRUE
                    : availableIn == 0 && BrotliEncoderHasMoreOutput(state) == BROTLI_FALSE
                if done { return }
            }
        }
    }
}

/// Runs `body` with `input`'s first byte, or with a byte of its own when `input` is empty: the C
/// libraries take no null input pointer, even for no bytes.
func withNonNullBase<Value>(_ input: UnsafeRawBufferPointer,
                            _ body: (UnsafePointer<UInt8>) throws -> Value) rethrows -> Value {
    if let base = input.baseAddress { return try body(base.assumingMemoryBound(to: UInt8.self)) }
    var none: UInt8 = 0
    return try withUnsafePointer(to: &none) { try body($0) }
}
