import CImageShims
import Foundation
import NetworkKit

/// An `nk_jpeg_stream` (CImageShims): libjpeg decoding from the bytes appended so far. Its
/// calls answer true when the step finished and false when it needs more bytes.
final class JPEGStream {
    private let stream: OpaquePointer
    private let isStrict: Bool

    /// A stream whose decoder is strict when `strict` is (see ``ImageDecodingOptions/isStrict``).
    init(strict: Bool) throws {
        guard let stream = nk_jpeg_stream_create() else { throw ParseError.image("cannot create a JPEG decoder") }
        self.stream = stream
        isStrict = strict
        nk_jpeg_set_strict(decoder, strict ? 1 : 0)
    }

    deinit {
        nk_jpeg_stream_destroy(stream)
    }

    private var decoder: OpaquePointer { nk_jpeg_stream_decoder(stream) }

    /// Appends the next bytes of the file.
    func append(_ bytes: Data) throws {
        let status = bytes.withUnsafeBytes { raw in
            nk_jpeg_stream_append(stream, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        guard status == 0 else { throw failure() }
    }

    /// No more bytes will come: running out of data is an error from now on.
    func end() {
        nk_jpeg_stream_end(stream)
    }

    /// The bytes appended and not consumed yet.
    var heldBytes: Int { nk_jpeg_stream_held(stream) }

    /// Reads the header into `info`.
    func readHeader(_ info: inout nk_jpeg_info) throws -> Bool {
        try finished(nk_jpeg_stream_read_header(stream, &info))
    }

    /// True when the header read says the file is arithmetic-coded (which libjpeg cannot decode
    /// from a source that waits for bytes).
    var isArithmetic: Bool { nk_jpeg_stream_is_arithmetic(stream) != 0 }

    /// Chooses DCT scaling `numerator`/8 and fills the output size into `info`.
    func setScale(_ numerator: Int, _ info: inout nk_jpeg_info) throws {
        guard nk_jpeg_set_scale(decoder, UInt32(numerator), &info) == 0 else { throw failure() }
    }

    /// Whether libjpeg estimates the AC coefficients not sent yet (on by default); before `start`.
    func setBlockSmoothing(_ on: Bool) {
        nk_jpeg_stream_set_block_smoothing(stream, on ? 1 : 0)
    }

    /// Starts decompressing, in buffered-image mode when `buffered`.
    func start(buffered: Bool) throws -> Bool {
        try finished(nk_jpeg_stream_start(stream, buffered ? 1 : 0))
    }

    /// Normal mode: decodes the rows the data allows into `pixels`; `rowsDone` is the rows decoded in all.
    func readRows(into pixels: inout [UInt8], bytesPerRow: Int, rowsDone: inout Int) throws -> Bool {
        var done: UInt32 = 0
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            nk_jpeg_stream_read_rows(stream, buffer.baseAddress, bytesPerRow, &done)
        }
        rowsDone = Int(done)
        return try finished(status)
    }

    /// Normal mode: reads on to the end marker.
    func finish() throws -> Bool {
        try finished(nk_jpeg_stream_finish(stream))
    }

    /// Buffered-image mode: consumes what the data allows; true once the end marker was read.
    func consume(completedScans: inout Int) throws -> Bool {
        var completed = Int32(completedScans)
        let status = nk_jpeg_stream_consume(stream, &completed)
        completedScans = Int(completed)
        return try finished(status)
    }

    /// Buffered-image mode: one output pass showing scan `scan`, each strip of rows (`stride`
    /// bytes apart) handed to `body`, then the end of the pass; false when ending it needs more data.
    func output(scan: Int, width: Int, _ body: (UnsafeMutablePointer<UInt8>, _ rows: Int, _ stride: Int) -> Void) throws -> Bool {
        _ = try finished(nk_jpeg_stream_start_output(stream, Int32(scan)))
        let stride = try PixelBuffer.byteCount(width, 4)
        let strip = UnsafeMutablePointer<UInt8>.allocate(capacity: try PixelBuffer.byteCount(stride, 16))
        defer { strip.deallocate() }
        while true {
            let rows = nk_jpeg_stream_read_strip(stream, strip, stride, 16)
            guard rows >= 0 else { throw failure() }
            guard rows > 0 else { break }
            body(strip, Int(rows), stride)
        }
        return try finishOutput()
    }

    /// Buffered-image mode: ends the output pass; false when that needs more data.
    func finishOutput() throws -> Bool {
        try finished(nk_jpeg_stream_finish_output(stream))
    }

    /// True when libjpeg reported missing or damaged pixel data.
    var isIncomplete: Bool { nk_jpeg_is_incomplete(decoder) != 0 }

    /// The warnings libjpeg gave (those it kept word for word).
    var warnings: [String] {
        (0..<nk_jpeg_warning_count(decoder)).compactMap { index in
            nk_jpeg_warning(decoder, index).map { String(cString: $0) }
        }
    }

    /// True for 1, false for 0; the decoder's error for -1.
    private func finished(_ status: Int32) throws -> Bool {
        guard status >= 0 else { throw failure() }
        return status == 1
    }

    /// The error `JPEGCodec` throws for the decoder's failure.
    private func failure() -> ParseError {
        let message = String(cString: nk_jpeg_message(decoder))
        if isIncomplete && isStrict {
            return IncompleteImageError(format: .jpeg, reason: message).parseError
        }
        return ParseError.image("invalid JPEG: \(message)")
    }
}
