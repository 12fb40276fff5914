import CZlib
import Foundation

/// Large but small-to-store PNG files for the image tests and benchmarks, written row by row
/// through zlib, so that making a 10000×10000 file needs a few rows of memory, not 300 MB.
public enum LargePNG {
    /// An 8-bit RGB PNG whose red channel runs from 0 at the left to 255 at the right and green
    /// from 0 at the top to 255 at the bottom (`gradientPixel`), blue 128. Rows after the first
    /// use PNG's Up filter, so they compress to almost nothing: 10000×10000 takes 1.3 MB at zlib
    /// level 1, which writes it many times faster than level 6 (0.3 MB; BENCHMARKS.md).
    /// Nil when zlib fails.
    public static func gradient(width: Int, height: Int) -> Data? {
        guard width > 0, height > 0, let width32 = UInt32(exactly: width), let height32 = UInt32(exactly: height) else { return nil }
        var header = Data()
        header.appendBigEndian(width32)
        header.appendBigEndian(height32)
        header.append(contentsOf: [8, 2, 0, 0, 0]) // 8-bit RGB, deflate, adaptive filtering, no interlace
        // Row 0 as stored (filter None); then Up rows: red and blue repeat the row above, green
        // grows by 0 or 1.
        var first = [UInt8](repeating: 0, count: 1 + width * 3)
        for x in 0..<width {
            first[1 + x * 3] = gradientPixel(x: x, y: 0, width: width, height: height).red
            first[1 + x * 3 + 2] = 128
        }
        var same = [UInt8](repeating: 0, count: 1 + width * 3)
        same[0] = 2
        var brighter = same
        for x in 0..<width { brighter[1 + x * 3 + 1] = 1 }
        guard let compressor = RowCompressor() else { return nil }
        compressor.add(first)
        for y in 1..<max(height, 1) {
            let step = gradientPixel(x: 0, y: y, width: width, height: height).green
                - gradientPixel(x: 0, y: y - 1, width: width, height: height).green
            compressor.add(step == 0 ? same : brighter)
        }
        guard let idat = compressor.finish() else { return nil }
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        file.appendChunk("IHDR", header)
        file.appendChunk("IDAT", idat)
        file.appendChunk("IEND", Data())
        return file
    }

    /// The colour of pixel (x, y) of `gradient(width:height:)`.
    public static func gradientPixel(x: Int, y: Int, width: Int, height: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        (UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 128)
    }
}

/// A zlib deflate stream fed row by row. The `z_stream` is on the heap: zlib keeps a pointer to it.
private final class RowCompressor {
    private let stream: UnsafeMutablePointer<z_stream>
    private var output = Data()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var failed = false

    init?() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard deflateInit2_(stream, 1, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    func add(_ row: [UInt8]) {
        run(row, flush: Z_NO_FLUSH)
    }

    /// The whole zlib stream, or nil when zlib failed.
    func finish() -> Data? {
        run([], flush: Z_FINISH)
        return failed ? nil : output
    }

    private func run(_ input: [UInt8], flush: Int32) {
        input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            var status = Z_OK
            repeat {
                buffer.withUnsafeMutableBufferPointer { target in
                    stream.pointee.next_out = target.baseAddress
                    stream.pointee.avail_out = UInt32(target.count)
                    status = deflate(stream, flush)
                    if let base = target.baseAddress { output.append(base, count: target.count - Int(stream.pointee.avail_out)) }
                }
                if status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR { failed = true }
            } while !failed && (stream.pointee.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END))
        }
    }
}

extension Data {
    /// Appends `value` as four bytes, most significant first (PNG's and TIFF's big-endian order).
    public mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    /// Appends a PNG chunk: length, type, data, CRC-32 of type and data.
    public mutating func appendChunk(_ type: String, _ body: Data) {
        appendBigEndian(UInt32(body.count))
        let typed = Data(type.utf8) + body
        append(typed)
        let crc = typed.withUnsafeBytes { bytes in
            crc32(0, bytes.bindMemory(to: Bytef.self).baseAddress, uInt(bytes.count))
        }
        appendBigEndian(UInt32(crc))
    }
}
