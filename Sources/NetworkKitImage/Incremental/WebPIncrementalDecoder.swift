import CWebP
import Foundation
import NetworkKit

extension WebPCodec: IncrementalImageCodec {
    /// A decoder on libwebp's incremental decoder (`WebPIDecoder`), decoding into the final
    /// image's buffer as the bytes arrive, with `decode`'s settings (scaled output for a
    /// thumbnail), so the final image is `decode`'s. It offers the rows decoded so far
    /// (``ImageStreamStage/rows(_:)``) when `previews` asks for ``ImagePreviewSources/partialRows``.
    /// An animated file is kept whole and decoded at the end, as `decode` decodes it.
    public func makeIncrementalDecoder(options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws
        -> any IncrementalImageDecoder {
        WebPIncrementalDecoder(codec: self, options: options,
                               rows: previews.sources.contains(.partialRows) ? TopDownPreviews(maxPixelSize: previews.maxPixelSize) : nil)
    }
}

/// ``WebPIncrementalState`` behind a lock, as the parser's decoder.
final class WebPIncrementalDecoder: IncrementalImageDecoder {
    private let state: Protected<WebPIncrementalState>

    init(codec: WebPCodec, options: ImageDecodingOptions, rows: TopDownPreviews?) {
        state = Protected(WebPIncrementalState(codec: codec, options: options, rows: rows))
    }

    func append(_ bytes: Data) throws -> ImageStreamStage? {
        try state.withLock { try $0.append(bytes) }
    }

    func preview() throws -> DecodedImage {
        try state.withLock { try $0.preview() }
    }

    func stopPreviews() {
        state.withLock { $0.rows = nil }
    }

    func finish() throws -> DecodedImage {
        try state.withLock { try $0.finish() }
    }
}

/// One WebP as its bytes arrive: held until libwebp can read its features, then decoded by a
/// ``WebPStream`` (a still image) or kept whole (an animation).
struct WebPIncrementalState {
    private let codec: WebPCodec
    private let options: ImageDecodingOptions
    var rows: TopDownPreviews?
    private var held = Data()
    private var stream: WebPStream?
    private var isAnimated = false
    private var source = (width: 0, height: 0)

    init(codec: WebPCodec, options: ImageDecodingOptions, rows: TopDownPreviews?) {
        self.codec = codec
        self.options = options
        self.rows = rows
    }

    mutating func append(_ bytes: Data) throws -> ImageStreamStage? {
        if let stream {
            try stream.append(bytes)
        } else {
            held.append(bytes)
            guard !isAnimated, try start() else { return nil }
        }
        guard let stream else { return nil }
        return rows?.newRows(stream.rowsDone, outputHeight: stream.height, sourceHeight: source.height)
    }

    /// Reads the features from the bytes held; true once a still image's decoder took them.
    private mutating func start() throws -> Bool {
        var features = WebPBitstreamFeatures()
        let status = held.withUnsafeBytes { raw in
            WebPGetFeatures(raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &features)
        }
        if status == VP8_STATUS_NOT_ENOUGH_DATA { return false }
        guard status == VP8_STATUS_OK else { throw WebPCodec.error(status) }
        if features.has_animation != 0 {
            isAnimated = true
            return false
        }
        source = (Int(features.width), Int(features.height))
        try options.checkSourceSize(width: source.width, height: source.height, format: .webp)
        let stream = try WebPStream(target: options.targetSize(width: source.width, height: source.height),
                                    scaled: options.targetSize(width: source.width, height: source.height) != source)
        try stream.append(held)
        held = Data()
        self.stream = stream
        return true
    }

    mutating func preview() throws -> DecodedImage {
        guard var rows, let stream else { throw ParseError.image("no WebP rows to preview") }
        defer { self.rows = rows }
        return try rows.preview(of: stream.pixels, width: stream.width, height: stream.height,
                                bytesPerRow: stream.bytesPerRow, format: .webp,
                                sourceWidth: source.width, sourceHeight: source.height)
    }

    mutating func finish() throws -> DecodedImage {
        rows = nil
        guard let stream else { return try codec.decode(held, options: options) }
        let pixels = try stream.finish()
        return try DecodedImage(
            width: stream.width, height: stream.height, bytesPerRow: stream.bytesPerRow, pixels: pixels,
            scale: options.scale ?? 1, format: .webp, sourceWidth: source.width, sourceHeight: source.height
        )
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
    private let byteCount: Int
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
        byteCount = layout.count
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

    /// The image once the data is complete.
    func finish() throws -> [UInt8] {
        guard status == VP8_STATUS_OK else {
            throw WebPCodec.error(status == VP8_STATUS_SUSPENDED ? VP8_STATUS_NOT_ENOUGH_DATA : status)
        }
        return Array(UnsafeBufferPointer(start: buffer, count: byteCount))
    }
}
