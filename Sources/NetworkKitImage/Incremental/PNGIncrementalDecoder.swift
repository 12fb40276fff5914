import CImageShims
import Foundation
import NetworkKit

extension PNGCodec: IncrementalImageCodec {
    /// A decoder that keeps the body and decodes it with `decode` at the end, so the final image
    /// is exactly `decode`'s (its simplified-API path has no incremental form). When `previews`
    /// asks for ``ImagePreviewSources/interlacedPasses``, libpng's progressive reader also reads
    /// the bytes as they arrive and an Adam7-interlaced file offers a preview after each pass but
    /// the last (``ImageStreamStage/pass(_:)``); it refuses an image over the pixel limit as soon
    /// as the header arrives.
    public func makeIncrementalDecoder(options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws
        -> any IncrementalImageDecoder {
        guard previews.sources.contains(.interlacedPasses) else { return WholeBodyImageDecoder(codec: self, options: options) }
        return PNGIncrementalDecoder(codec: self, options: options, maxPixelSize: previews.maxPixelSize)
    }
}

/// A PNG kept whole for the final decode, read by libpng's progressive reader for pass previews.
final class PNGIncrementalDecoder: IncrementalImageDecoder {
    private struct State {
        var body = Data()
        var stream: PNGStream?
        var offeredPasses = 0
    }

    private let codec: PNGCodec
    private let options: ImageDecodingOptions
    private let maxPixelSize: Int?
    private let state: Protected<State>

    init(codec: PNGCodec, options: ImageDecodingOptions, maxPixelSize: Int?) {
        self.codec = codec
        self.options = options
        self.maxPixelSize = maxPixelSize
        state = Protected(State(stream: PNGStream(pixelLimit: options.pixelLimit)))
    }

    func append(_ bytes: Data) throws -> ImageStreamStage? {
        try state.withLock { state in
            state.body.append(bytes)
            guard let stream = state.stream else { return nil }
            let fed = stream.append(bytes)
            if let header = stream.header, header.overLimit || !header.interlaced {
                state.stream = nil
                if header.overLimit {
                    try options.checkSourceSize(width: header.width, height: header.height, format: .png)
                }
                return nil
            }
            guard fed else {
                state.stream = nil
                return nil
            }
            let passes = stream.passesDone
            guard passes > state.offeredPasses, passes < 7 else { return nil }
            state.offeredPasses = passes
            return .pass(passes)
        }
    }

    func preview() throws -> DecodedImage {
        try state.withLock { state in
            guard let stream = state.stream, state.offeredPasses > 0 else { throw ParseError.image("no PNG pass to preview") }
            return try stream.preview(afterPass: state.offeredPasses, maxPixelSize: maxPixelSize)
        }
    }

    func stopPreviews() {
        state.withLock { $0.stream = nil }
    }

    func finish() throws -> DecodedImage {
        let body = state.withLock { state in
            state.stream = nil
            defer { state.body = Data() }
            return state.body
        }
        return try codec.decode(body, options: options)
    }
}

/// An `nk_png_stream` (CImageShims): libpng's progressive reader combining each pass's rows.
final class PNGStream {
    private let stream: OpaquePointer?

    init(pixelLimit: Int) {
        stream = nk_png_stream_create(UInt64(max(pixelLimit, 0)))
    }

    deinit {
        nk_png_stream_destroy(stream)
    }

    /// Feeds `bytes`; false once libpng failed (or the stream could not be made).
    func append(_ bytes: Data) -> Bool {
        guard let stream else { return false }
        return bytes.withUnsafeBytes { raw in
            nk_png_stream_append(stream, raw.bindMemory(to: UInt8.self).baseAddress, raw.count) == 0
        }
    }

    /// The header's size, once read.
    var header: (width: Int, height: Int, interlaced: Bool, overLimit: Bool)? {
        guard let stream else { return nil }
        var width: UInt32 = 0, height: UInt32 = 0, interlaced: Int32 = 0, overLimit: Int32 = 0
        guard nk_png_stream_header(stream, &width, &height, &interlaced, &overLimit) == 1 else { return nil }
        return (Int(width), Int(height), interlaced != 0, overLimit != 0)
    }

    /// The Adam7 passes complete.
    var passesDone: Int {
        stream.map { Int(nk_png_stream_passes_done($0)) } ?? 0
    }

    /// The image as of pass `pass`: each row not in passes 1…`pass` repeats the nearest row
    /// above that is (libpng already repeats each pixel across the columns its pass leaves
    /// out), box-filtered within `maxPixelSize`.
    func preview(afterPass pass: Int, maxPixelSize: Int?) throws -> DecodedImage {
        guard let header, let stream, let pixels = nk_png_stream_pixels(stream) else {
            throw ParseError.image("no PNG pass to preview")
        }
        let target = ImageDecodingOptions(maxPixelSize: maxPixelSize).targetSize(width: header.width, height: header.height)
        var filter = try BoxFilter(sourceWidth: header.width, sourceHeight: header.height,
                                   targetWidth: target.width, targetHeight: target.height)
        let rowStep = [8, 8, 4, 4, 2, 2, 1][min(max(pass, 1), 7) - 1]
        let bytesPerRow = try PixelBuffer.byteCount(header.width, 4)
        for row in 0..<header.height {
            filter.add(row: pixels + (row - row % rowStep) * bytesPerRow)
        }
        return try DecodedImage(width: target.width, height: target.height, pixels: filter.pixels, format: .png,
                                sourceWidth: header.width, sourceHeight: header.height)
    }
}
