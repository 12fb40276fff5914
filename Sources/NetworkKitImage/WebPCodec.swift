import CWebP
import Foundation
import NetworkKit

/// WebP through libwebp: lossy, lossless and alpha, decoded straight into Swift memory;
/// thumbnails use libwebp's scaled decode. Animated files decode their first frame and
/// report the frame count.
public struct WebPCodec: ImageCodec {
    /// Creates the codec.
    public init() {}

    /// `.webp`.
    public var format: ImageFormat { .webp }

    /// `RIFF....WEBP`.
    public func canDecode(_ data: Data) -> Bool {
        data.hasSignature(Array("RIFF".utf8)) && data.hasSignature(Array("WEBP".utf8), at: 8)
    }

    /// Decodes to RGBA8, scaled by libwebp when `maxPixelSize` asks for it.
    public func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage {
        try data.withUnsafeBytes { bytes in
            guard !bytes.isEmpty else { throw ParseError.image("empty WebP data") }
            var features = WebPBitstreamFeatures()
            let status = WebPGetFeatures(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &features)
            guard status == VP8_STATUS_OK else { throw Self.error(status) }
            if features.has_animation != 0 {
                return try WebPAnimation.decodeFirstFrame(bytes, options: options)
            }
            let width = Int(features.width), height = Int(features.height)
            try options.checkSourceSize(width: width, height: height, format: .webp)
            return try Self.decodeStill(bytes, width: width, height: height, options: options)
        }
    }

    /// Decodes one still bitstream of `width` × `height` pixels, scaled to `options`' target size.
    static func decodeStill(
        _ bytes: UnsafeRawBufferPointer, width: Int, height: Int, options: ImageDecodingOptions, frameCount: Int = 1
    ) throws -> DecodedImage {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw ParseError.image("libwebp version mismatch") }
        let target = options.targetSize(width: width, height: height)
        if target != (width, height) {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        let layout = try PixelBuffer.rgbaLayout(width: target.width, height: target.height)
        guard let stride = Int32(exactly: layout.bytesPerRow) else {
            throw ParseError.image("WebP rows of \(layout.bytesPerRow) bytes are too long")
        }
        let pixels = try PixelBuffer.make(count: layout.count) { buffer in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = stride
            config.output.u.RGBA.size = buffer.count
            let status = WebPDecode(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &config)
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else { throw error(status) }
        }
        return try DecodedImage(
            width: target.width, height: target.height, bytesPerRow: layout.bytesPerRow, pixels: pixels,
            scale: options.scale ?? 1, format: .webp, frameCount: frameCount,
            sourceWidth: width, sourceHeight: height
        )
    }

    /// A `ParseError` naming libwebp's status.
    static func error(_ status: VP8StatusCode) -> ParseError {
        let name = switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "corrupt bitstream"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: "truncated data"
        default: "status \(status.rawValue)"
        }
        return ParseError.image("invalid WebP: \(name)")
    }
}
