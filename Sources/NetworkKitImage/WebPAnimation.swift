import CWebP
import NetworkKit

/// The first frame of an animated WebP, through libwebp's demuxer.
enum WebPAnimation {
    /// Decodes frame 1 onto a transparent canvas (for the first frame, blending and disposal
    /// have nothing to act on) and reports the number of frames.
    static func decodeFirstFrame(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws -> DecodedImage {
        var webpData = WebPData(bytes: bytes.bindMemory(to: UInt8.self).baseAddress, size: bytes.count)
        guard let demuxer = WebPDemux(&webpData) else { throw ParseError.image("invalid animated WebP: cannot demux") }
        defer { WebPDemuxDelete(demuxer) }
        let canvasWidth = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        let canvasHeight = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        let frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        try options.checkSourceSize(width: canvasWidth, height: canvasHeight, format: .webp)

        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { throw ParseError.image("animated WebP has no frames") }
        defer { WebPDemuxReleaseIterator(&iterator) }
        let fragment = UnsafeRawBufferPointer(start: iterator.fragment.bytes, count: iterator.fragment.size)
        let frame = (x: Int(iterator.x_offset), y: Int(iterator.y_offset), width: Int(iterator.width), height: Int(iterator.height))
        guard frame.width > 0, frame.height > 0, frame.x >= 0, frame.y >= 0,
              frame.x + frame.width <= canvasWidth, frame.y + frame.height <= canvasHeight else {
            throw ParseError.image("invalid animated WebP: first frame lies outside the canvas")
        }
        if frame == (0, 0, canvasWidth, canvasHeight) {
            return try WebPCodec.decodeStill(fragment, width: canvasWidth, height: canvasHeight, options: options, frameCount: frameCount)
        }
        let decoded = try WebPCodec.decodeStill(
            fragment, width: frame.width, height: frame.height, options: ImageDecodingOptions(pixelLimit: options.pixelLimit)
        )
        let canvas = try place(decoded, at: (frame.x, frame.y), canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        return try DecodedImage(
            width: canvasWidth, height: canvasHeight, pixels: canvas,
            scale: options.scale ?? 1, format: .webp, frameCount: frameCount
        ).downsampled(for: options)
    }

    /// A transparent canvas with `frame` copied in at `origin`.
    private static func place(
        _ frame: DecodedImage, at origin: (x: Int, y: Int), canvasWidth: Int, canvasHeight: Int
    ) throws -> [UInt8] {
        let layout = try PixelBuffer.rgbaLayout(width: canvasWidth, height: canvasHeight)
        var canvas = [UInt8](repeating: 0, count: layout.count)
        let rowBytes = frame.width * 4
        for row in 0..<frame.height {
            let source = row * frame.bytesPerRow
            let destination = (origin.y + row) * layout.bytesPerRow + origin.x * 4
            canvas.replaceSubrange(destination..<destination + rowBytes, with: frame.pixels[source..<source + rowBytes])
        }
        return canvas
    }
}
