import CWebP
import Foundation
import NetworkKit

extension WebPCodec: IncrementalImageCodec {
    /// A decoder that keeps the body and decodes it with `decode` at the end, so the final image
    /// (and every error) is exactly `decode`'s: libwebp's incremental decoder accepts files whose
    /// RIFF or chunk sizes claim more bytes than there are, which `WebPDecode` refuses as
    /// truncated. It checks the pixel limit as soon as the header arrives. When `previews` asks
    /// for ``ImagePreviewSources/partialRows``, libwebp's incremental decoder (`WebPIDecoder`)
    /// also decodes a still image as it arrives and offers the rows decoded so far
    /// (``ImageStreamStage/rows(_:)``).
    public func makeIncrementalDecoder(options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws
        -> any IncrementalImageDecoder {
        let rows = previews.sources.contains(.partialRows) ? TopDownPreviews(maxPixelSize: previews.maxPixelSize) : nil
        return LockedIncrementalDecoder(state: WebPIncrementalState(codec: self, options: options, rows: rows))
    }
}

/// One WebP as its bytes arrive: kept for the final decode, its features read as soon as they
/// arrive (the pixel limit), and a still image decoded by a ``WebPStream`` for row previews.
struct WebPIncrementalState: IncrementalDecodeState {
    private let codec: WebPCodec
    private let options: ImageDecodingOptions
    private var rows: TopDownPreviews?
    private var body = Data()
    private var knowsFeatures = false
    private var stream: WebPStream?
    private var source = (width: 0, height: 0)

    init(codec: WebPCodec, options: ImageDecodingOptions, rows: TopDownPreviews?) {
        self.codec = codec
        self.options = options
        self.rows = rows
    }

    mutating func append(_ bytes: Data) throws -> ImageStreamStage? {
        body.append(bytes)
        if !knowsFeatures {
            try readFeatures()
        } else if let stream {
            do {
                try stream.append(bytes)
            } catch {
                stopPreviews()
            }
        }
        guard let stream else { return nil }
        return rows?.newRows(stream.rowsDone, outputHeight: stream.height, sourceHeight: source.height)
    }

    /// Reads the features once the body holds them: a still image over the pixel limit fails
    /// here, as `decode` fails; one within it gets a decoder for the previews, if any are wanted.
    /// Features that do not read are left to the final decode.
    private mutating func readFeatures() throws {
        var features = WebPBitstreamFeatures()
        let status = body.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        guard status != VP8_STATUS_NOT_ENOUGH_DATA else { return }
        knowsFeatures = true
        guard status == VP8_STATUS_OK, features.has_animation == 0 else { return stopPreviews() }
        source = (Int(features.width), Int(features.height))
        try options.checkSourceSize(width: source.width, height: source.height, format: .webp)
        guard rows != nil else { return }
        let target = options.targetSize(width: source.width, height: source.height)
        do {
            let stream = try WebPStream(target: target, scaled: target != source)
            try stream.append(body)
            self.stream = stream
        } catch {
            stopPreviews()
        }
    }

    mutating func preview() throws -> DecodedImage {
        guard var rows, let stream else { throw ParseError.image("no WebP rows to preview") }
        defer { self.rows = rows }
        return try rows.preview(of: stream.pixels, width: stream.width, height: stream.height,
                                bytesPerRow: stream.bytesPerRow, format: .webp,
                                sourceWidth: source.width, sourceHeight: source.height)
    }

    mutating func stopPreviews() {
        rows = nil
        stream = nil
    }

    mutating func finish() throws -> DecodedImage {
        stopPreviews()
        defer { body = Data() }
        return try codec.decode(body, options: options)
    }
}

/// libwebp's incremental decoder writing RGBA into a buffer of its own, set up as
/// `WebPCodec.decodeStill` sets up `WebPDecode`. libwebp keeps pointers to the configuration and
/// the buffer, so both live on the heap, at fixed addresses, as long as the decoder.
final class WebPStream {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private let buffer: UnsafeMutablePointer<UInt8>
    private var decoder: OpaquePointer?
    private var status = VP8_STATUS_NOT_ENOUGH_DATA

    /// A decoder whose output is `target` (scaled when `scaled`).
    init(target: (width: Int, height: Int), scaled: Bool) throws {
        (width, height) = target
        let layout = try PixelBuffer.rgbaLayout(width: width, height: height)
        guard let stride = Int32(exactly: layout.bytesPerRow) else {
            throw ParseError.image("WebP rows of \(layout.bytesPerRow) bytes are too long")
        }
        bytesPerRow = layout.bytesPerRow
        config = .allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
        buffer = .allocate(capacity: layout.count)
        buffer.initialize(repeating: 0, count: layout.count)
        guard WebPInitDecoderConfig(config) != 0 else {
            Self.release(config, buffer)
            throw ParseError.image("libwebp version mismatch")
        }
        if scaled {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(width)
            config.pointee.options.scaled_height = Int32(height)
        }
        config.pointee.output.colorspace = MODE_RGBA
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = buffer
        config.pointee.output.u.RGBA.stride = stride
        config.pointee.output.u.RGBA.size = layout.count
        guard let decoder = WebPIDecode(nil, 0, config) else {
            Self.release(config, buffer)
            throw ParseError.image("cannot create a WebP decoder")
        }
        self.decoder = decoder
    }

    deinit {
        if let decoder { WebPIDelete(decoder) }
        Self.release(config, buffer)
    }

    private static func release(_ config: UnsafeMutablePointer<WebPDecoderConfig>, _ buffer: UnsafeMutablePointer<UInt8>) {
        config.deinitialize(count: 1)
        config.deallocate()
        buffer.deallocate()
    }

    /// Decodes `bytes` as far as they go.
    func append(_ bytes: Data) throws {
        guard let decoder, status != VP8_STATUS_OK else { return }
        status = bytes.withUnsafeBytes { raw in
            WebPIAppend(decoder, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        guard status == VP8_STATUS_OK || status == VP8_STATUS_SUSPENDED else { throw WebPCodec.error(status) }
    }

    /// The rows decoded so far.
    var rowsDone: Int {
        guard let decoder else { return 0 }
        var lastRow: Int32 = 0
        _ = WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil)
        return Int(lastRow)
    }

    /// The output buffer.
    var pixels: UnsafePointer<UInt8> {
        UnsafePointer(buffer)
    }
}
