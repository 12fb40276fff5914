import CImageShims
import Foundation
import NetworkKit

/// JPEG through libjpeg-turbo: baseline and progressive; gray and YCbCr decode straight to
/// RGBA, CMYK/YCCK (including Adobe's inverted CMYK) are converted to RGBA. The EXIF
/// orientation is reported, not applied. A thumbnail uses DCT scaling (1/8…1), so it costs
/// a fraction of a full decode, then a box filter brings it to the exact size.
public struct JPEGCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// `.jpeg`.
    public var format: ImageFormat { .jpeg }

    /// SOI followed by a marker: `FF D8 FF`.
    public func canDecode(_ data: Data) -> Bool {
        data.hasSignature([0xFF, 0xD8, 0xFF])
    }

    /// Decodes to RGBA8, DCT-scaled when `maxPixelSize` allows.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        guard let decoder = nk_jpeg_create() else { throw ParseError.image("cannot create a JPEG decoder") }
        defer { nk_jpeg_destroy(decoder) }
        func failure() -> ParseError {
            ParseError.image("invalid JPEG: \(String(cString: nk_jpeg_message(decoder)))")
        }
        let image = try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ParseError.image("empty JPEG data") }
            var info = nk_jpeg_info()
            guard nk_jpeg_read_header(decoder, base, bytes.count, &info) == 0 else { throw failure() }
            let sourceWidth = Int(info.source_width), sourceHeight = Int(info.source_height)
            try options.checkSourceSize(width: sourceWidth, height: sourceHeight, format: .jpeg)
            let orientation = EXIFOrientation.read(UnsafeRawBufferPointer(start: info.exif, count: info.exif_length))

            let target = options.targetSize(width: sourceWidth, height: sourceHeight)
            let numerator = Self.scaleNumerator(longestSide: max(sourceWidth, sourceHeight), wanted: max(target.width, target.height))
            guard nk_jpeg_set_scale(decoder, UInt32(numerator), &info) == 0 else { throw failure() }

            let width = Int(info.width), height = Int(info.height)
            let layout = try PixelBuffer.rgbaLayout(width: width, height: height)
            var pixels = try PixelBuffer.make(count: layout.count) { buffer in
                guard nk_jpeg_decode(decoder, buffer.baseAddress, layout.bytesPerRow) == 0 else { throw failure() }
            }
            if info.is_cmyk != 0 {
                CMYKConversion.convertToRGBA(&pixels, inverted: info.adobe_inverted != 0)
            }
            return try DecodedImage(
                width: width, height: height, bytesPerRow: layout.bytesPerRow, pixels: pixels,
                scale: options.scale ?? 1, format: .jpeg, orientation: orientation,
                sourceWidth: sourceWidth, sourceHeight: sourceHeight
            )
        }
        return try image.downsampled(for: options)
    }

    /// The smallest n in 1…8 for which scaling by n/8 keeps the longest side at least `wanted`.
    static func scaleNumerator(longestSide: Int, wanted: Int) -> Int {
        (1...8).first { numerator in (longestSide * numerator + 7) / 8 >= wanted } ?? 8
    }
}
