import CImageShims
import CPNG
import Foundation
import NetworkKit

/// PNG through libpng, which handles 1–16-bit gray, gray + alpha, RGB, RGBA, palettes with
/// tRNS and Adam7 interlacing, and converts them all to RGBA8, non-premultiplied.
///
/// Colour: a `gAMA` chunk is applied, so samples come out sRGB-encoded as browsers show them
/// (Pillow returns the stored samples instead); a file with an `sRGB` chunk or without `gAMA` is
/// returned as stored, 16-bit samples scaled to 8 bits. `iCCP` and `cHRM` are not applied.
///
/// Files go through libpng's simplified API, except Adam7-interlaced 16-bit files: libpng
/// 1.6.39's simplified API returns wrong samples on every other row of those (with or without a
/// `gAMA` chunk; errors up to 255 levels in the tests), so they take libpng's classic API (through a small C shim that keeps its
/// `setjmp`), set up to give the same result.
///
/// A thumbnail (`maxPixelSize`) of a non-interlaced file goes through the classic API too, row
/// by row, each row added to a box filter as it is decoded: it needs memory for the output and
/// one source row (a 64 px thumbnail of a 10000×10000 file takes a few megabytes, not 400).
/// An Adam7-interlaced file's thumbnail is box-filtered after the full decode, since its passes
/// spread every row over the whole file. Truncated or damaged image data is always an error:
/// libpng has no partial result to report.
public struct PNGCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// `.png`.
    public var format: ImageFormat { .png }

    /// The 8-byte PNG signature.
    public func canDecode(_ data: Data) -> Bool {
        data.hasSignature([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// Decodes to RGBA8.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        let image = try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ParseError.image("empty PNG data") }
            guard canDecode(data) else { throw ParseError.image("not a PNG file: no PNG signature") }
            guard PNGChunks.endsWithIEND(bytes) else { throw ParseError.image("truncated PNG: no IEND chunk") }
            let png = PNGImage()
            guard png_image_begin_read_from_memory(png.pointer, base, bytes.count) != 0 else {
                throw ParseError.image("invalid PNG: \(png.message)")
            }
            let width = Int(png.pointer.pointee.width), height = Int(png.pointer.pointee.height)
            try options.checkSourceSize(width: width, height: height, format: .png)
            let target = options.targetSize(width: width, height: height)
            if target != (width, height) && !PNGChunks.isInterlaced(bytes) {
                return try Self.streamedThumbnail(bytes, width: width, height: height, target: target, options: options)
            }
            let layout = try PixelBuffer.rgbaLayout(width: width, height: height)
            guard let rowStride = Int32(exactly: layout.bytesPerRow) else {
                throw ParseError.image("PNG rows of \(layout.bytesPerRow) bytes are too long")
            }
            let pixels: [UInt8]
            if PNGChunks.isInterlaced16Bit(bytes) {
                pixels = try Self.decodeWithClassicAPI(bytes, width: width, height: height, layout: layout)
            } else {
                png.pointer.pointee.format = PNG.formatRGBA
                // Without gAMA/sRGB chunks libpng takes 16-bit samples as linear and would gamma-encode
                // them; browsers and other decoders treat them as sRGB, so do we.
                png.pointer.pointee.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
                pixels = try PixelBuffer.make(count: layout.count) { buffer in
                    guard png_image_finish_read(png.pointer, nil, buffer.baseAddress, rowStride, nil) != 0 else {
                        throw ParseError.image("invalid PNG: \(png.message)")
                    }
                }
            }
            return try DecodedImage(
                width: width, height: height, bytesPerRow: layout.bytesPerRow, pixels: pixels,
                scale: options.scale ?? 1, format: .png
            )
        }
        return try image.downsampled(for: options)
    }

    /// Decodes through libpng's classic API, for the files the simplified API gets wrong.
    private static func decodeWithClassicAPI(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, layout: (bytesPerRow: Int, count: Int)
    ) throws -> [UInt8] {
        let reader = try PNGReader(bytes)
        guard reader.width == width, reader.height == height else {
            throw ParseError.image("invalid PNG: image size differs from the header read before")
        }
        return try PixelBuffer.make(count: layout.count) { buffer in
            try reader.readImage(into: buffer, bytesPerRow: layout.bytesPerRow)
        }
    }

    /// A thumbnail of a non-interlaced file, box-filtered row by row as libpng decodes them:
    /// it needs the output and one source row, not the whole image.
    private static func streamedThumbnail(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, target: (width: Int, height: Int),
        options: ImageDecodingOptions
    ) throws -> DecodedImage {
        let reader = try PNGReader(bytes)
        guard reader.width == width, reader.height == height, !reader.isInterlaced else {
            throw ParseError.image("invalid PNG: image layout differs from the header read before")
        }
        var filter = try BoxFilter(sourceWidth: width, sourceHeight: height, targetWidth: target.width, targetHeight: target.height)
        try reader.forEachRow { filter.add(row: $0) }
        return try DecodedImage(
            width: target.width, height: target.height, pixels: filter.pixels,
            scale: options.scale ?? 1, format: .png, sourceWidth: width, sourceHeight: height
        )
    }
}
