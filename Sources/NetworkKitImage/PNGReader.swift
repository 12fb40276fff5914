import CImageShims
import NetworkKit

/// libpng's classic API through `nk_png_reader` (CImageShims): rows decoded one at a time for
/// thumbnails, or the whole image for the files the simplified API gets wrong.
final class PNGReader {
    private let reader: OpaquePointer
    let width: Int
    let height: Int
    let isInterlaced: Bool

    /// Reads the header of the PNG in `bytes`, which must outlive the reader.
    /// - Throws: `ParseError(parser: "image")` when libpng refuses the file.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress,
              let reader = nk_png_reader_create(base, bytes.count) else {
            throw ParseError.image("cannot create a PNG reader")
        }
        self.reader = reader
        var width: UInt32 = 0, height: UInt32 = 0, interlaced: Int32 = 0
        guard nk_png_reader_start(reader, &width, &height, &interlaced) == 0 else {
            let error = Self.error(reader)
            nk_png_reader_destroy(reader)
            throw error
        }
        self.width = Int(width)
        self.height = Int(height)
        isInterlaced = interlaced != 0
    }

    deinit {
        nk_png_reader_destroy(reader)
    }

    /// Decodes the whole image into `buffer` (`height` rows of `bytesPerRow` bytes) and reads the rest of the file.
    func readImage(into buffer: UnsafeMutableBufferPointer<UInt8>, bytesPerRow: Int) throws {
        let needed = try PixelBuffer.byteCount(bytesPerRow, height)
        guard buffer.count >= needed,
              nk_png_reader_read_image(reader, buffer.baseAddress, bytesPerRow) == 0,
              nk_png_reader_finish(reader) == 0 else { throw Self.error(reader) }
    }

    /// Decodes the rows one by one into a buffer of one row, handing each to `body`, then reads
    /// the rest of the file. Only for images that are not interlaced.
    func forEachRow(_ body: (UnsafePointer<UInt8>) -> Void) throws {
        let rowBytes = try PixelBuffer.byteCount(width, 4)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
        defer { row.deallocate() }
        for _ in 0..<height {
            guard nk_png_reader_read_rows(reader, row, rowBytes, 1) == 0 else { throw Self.error(reader) }
            body(row)
        }
        guard nk_png_reader_finish(reader) == 0 else { throw Self.error(reader) }
    }

    private static func error(_ reader: OpaquePointer) -> ParseError {
        let message = String(cString: nk_png_reader_message(reader))
        return ParseError.image("invalid PNG: \(message.isEmpty ? "libpng error" : message)")
    }
}
