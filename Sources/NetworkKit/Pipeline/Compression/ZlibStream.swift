import CZlib
import Foundation

/// Why a decoder or an encoder (zlib, brotli, zstd) stopped early; `Decompressor` turns it into a
/// `ParseError` naming the coding.
enum CodingFailure: Error, CustomStringConvertible {
    case limitExceeded(Int)
    case truncated
    case corrupt(String)
    case inputTooLarge

    /// The failure in words, without the coding's name (the caller adds it).
    var description: String {
        switch self {
        case .limitExceeded(let limit): "the output exceeds the limit of \(limit) bytes"
        case .truncated: "the data ended before the end of the stream"
        case .corrupt(let message): message
        case .inputTooLarge: "the input is larger than 4 GiB"
        }
    }
}

/// What one call of `inflate`/`deflate` left the stream in.
enum ZlibStep {
    case more
    case finished
    case failed(CodingFailure)
}

/// A `z_stream` on the heap. zlib stores a pointer back to the stream and checks it on
/// every call, so the struct must never move, which a Swift `var` does not promise.
final class ZlibStream {
    private enum Direction { case inflate, deflate }

    let stream: UnsafeMutablePointer<z_stream>
    private let direction: Direction

    /// An inflating stream; `windowBits` selects the wrapper: 31 gzip, 15 zlib, -15 raw.
    init(inflateWindowBits windowBits: Int32) throws(CodingFailure) {
        stream = Self.allocate()
        direction = .inflate
        let status = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        try check(status, "inflateInit2")
    }

    /// A deflating stream at `level` (0…9, -1 default); `windowBits` 31 writes gzip, 15 zlib.
    init(deflateLevel level: Int32, windowBits: Int32) throws(CodingFailure) {
        stream = Self.allocate()
        direction = .deflate
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size)
        )
        try check(status, "deflateInit2")
    }

    deinit {
        switch direction {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deallocate()
    }

    private static func allocate() -> UnsafeMutablePointer<z_stream> {
        let pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        return pointer
    }

    private func check(_ status: Int32, _ call: String) throws(CodingFailure) {
        guard status == Z_OK else { throw .corrupt("\(call) failed with zlib status \(status)") }
    }

    /// zlib's message for the last error, or `fallback`.
    func message(or fallback: String) -> String {
        stream.pointee.msg.map { String(cString: $0) } ?? fallback
    }

    /// Feeds all of `input` and runs `step` until it reports `.finished`, collecting the
    /// output in a buffer that grows geometrically but never past `limit + 1` bytes.
    func run(
        input: UnsafeRawBufferPointer,
        initialCapacity: Int,
        limit: Int,
        step: (UnsafeMutablePointer<z_stream>) -> ZlibStep
    ) throws(CodingFailure) -> Data {
        guard input.count <= Int(UInt32.max) else { throw .inputTooLarge }
        let ceiling = limit < Int.max ? max(limit, 0) + 1 : Int.max
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = UInt32(input.count)

        var output = Data(count: min(ceiling, max(initialCapacity, 1)))
        var produced = 0
        while true {
            if produced == output.count {
                guard output.count < ceiling else { throw .limitExceeded(limit) }
                output.count = min(ceiling, output.count > ceiling / 2 ? ceiling : output.count * 2)
            }
            let result: ZlibStep = output.withUnsafeMutableBytes { buffer in
                let room = min(buffer.count - produced, Int(UInt32.max))
                stream.pointee.next_out = buffer.bindMemory(to: Bytef.self).baseAddress.map { $0 + produced }
                stream.pointee.avail_out = UInt32(room)
                let step = step(stream)
                produced += room - Int(stream.pointee.avail_out)
                return step
            }
            if produced > limit { throw .limitExceeded(limit) }
            switch result {
            case .more: continue
            case .finished:
                output.count = produced
                return output
            case .failed(let failure): throw failure
            }
        }
    }
}
