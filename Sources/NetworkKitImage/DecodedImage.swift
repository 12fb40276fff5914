import NetworkKit

/// A decoded bitmap in Swift-owned memory.
public struct DecodedImage: Sendable {
    /// Width in pixels (after any downsampling).
    public let width: Int
    /// Height in pixels (after any downsampling).
    public let height: Int
    /// The layout of `pixels`; `.rgba8` for every built-in codec.
    public let pixelFormat: PixelFormat
    /// Bytes from the start of one row to the next (at least `width * bytesPerPixel`).
    public let bytesPerRow: Int
    /// `height` rows of `bytesPerRow` bytes, top row first.
    public let pixels: [UInt8]
    /// Pixels per point: 2 for `@2x` artwork, otherwise 1 unless set explicitly.
    public internal(set) var scale: Double
    /// The encoding the image was decoded from.
    public let format: ImageFormat
    /// The number of frames in the file (animated WebP); only the first is decoded.
    public let frameCount: Int
    /// The EXIF orientation stored in the file (JPEG). Reported only: `pixels` are
    /// exactly as stored, not rotated or flipped.
    public let orientation: ImageOrientation
    /// The width of the image in the file, before downsampling.
    public let sourceWidth: Int
    /// The height of the image in the file, before downsampling.
    public let sourceHeight: Int
    /// True when the file's pixel data ended early or was damaged and the decoder filled in the
    /// rest: a JPEG cut short before its end marker's place (half a file followed by `FF D9`),
    /// or one with an invalid Huffman code or a missing restart marker. libjpeg then paints the
    /// missing part flat gray, as browsers show such files. False for an intact file, and
    /// always false for PNG and WebP, whose decoders refuse missing data instead. It speaks of
    /// the data decoded: a progressive JPEG's thumbnail at 1/8 skips scans whose data it does not
    /// need (see ``JPEGCodec``), and damage there does not count.
    /// Set ``ImageDecodingOptions/isStrict`` to get an error rather than such an image.
    public let isIncomplete: Bool
    /// What the decoder warned about while decoding, word for word (libjpeg's messages such as
    /// `Corrupt JPEG data: premature end of data segment`; at most the first four). Empty for a
    /// clean decode. A warning does not always mean damage: see ``isIncomplete``.
    public let warnings: [String]

    /// Creates an image, checking that `pixels` holds `height` rows of `bytesPerRow` bytes.
    /// `sourceWidth`/`sourceHeight` default to `width`/`height`; a codec that filled in missing
    /// pixel data passes `isIncomplete: true` and its decoder's `warnings`.
    /// - Throws: `ParseError(parser: "image")` when the sizes do not fit together.
    public init(
        width: Int,
        height: Int,
        pixelFormat: PixelFormat = .rgba8,
        bytesPerRow: Int? = nil,
        pixels: [UInt8],
        scale: Double = 1,
        format: ImageFormat,
        frameCount: Int = 1,
        orientation: ImageOrientation = .up,
        sourceWidth: Int? = nil,
        sourceHeight: Int? = nil,
        isIncomplete: Bool = false,
        warnings: [String] = []
    ) throws {
        let rowBytes = try bytesPerRow ?? PixelBuffer.byteCount(width, pixelFormat.bytesPerPixel)
        let needed = try PixelBuffer.byteCount(rowBytes, height)
        guard width > 0, height > 0, rowBytes >= width * pixelFormat.bytesPerPixel, pixels.count >= needed else {
            throw ParseError.image(
                "\(format) image of \(width)×\(height) with \(rowBytes) bytes per row does not fit \(pixels.count) bytes"
            )
        }
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytesPerRow = rowBytes
        self.pixels = pixels
        self.scale = scale > 0 && scale.isFinite ? scale : 1
        self.format = format
        self.frameCount = max(frameCount, 1)
        self.orientation = orientation
        self.sourceWidth = sourceWidth ?? width
        self.sourceHeight = sourceHeight ?? height
        self.isIncomplete = isIncomplete
        self.warnings = warnings
    }

    /// True when the image was decoded smaller than it is stored.
    public var isDownsampled: Bool {
        width != sourceWidth || height != sourceHeight
    }

    /// The size in points: pixels divided by `scale`.
    public var pointSize: (width: Double, height: Double) {
        (Double(width) / scale, Double(height) / scale)
    }
}
