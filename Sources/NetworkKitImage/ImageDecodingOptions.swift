import NetworkKit

/// What a codec is asked to produce.
public struct ImageDecodingOptions: Sendable {
    /// 100 megapixels: 400 MB of RGBA.
    public static let defaultPixelLimit = 100_000_000

    /// The longest side of the thumbnail wanted, in pixels; `nil` decodes at full size.
    /// Images already smaller are not enlarged. Values below 1 count as 1.
    public var maxPixelSize: Int?
    /// The largest source image (width × height, read from the header) a codec accepts;
    /// larger ones are refused before any pixel memory is allocated.
    public var pixelLimit: Int
    /// The scale to report (`2` for `@2x` artwork); `nil` means 1, or what `ImageParser`
    /// derives from the URL.
    public var scale: Double?
    /// Strict decoding: a file whose pixel data ends early or is damaged (see
    /// ``DecodedImage/isIncomplete``) throws a `ParseError` of kind `image` whose `underlying`
    /// error is an ``IncompleteImageError``, instead of decoding to an image with the missing
    /// part filled in. False by default, as browsers show such files.
    public var isStrict: Bool

    /// Creates options; the defaults decode at full size with a 100 MP limit, leniently.
    public init(maxPixelSize: Int? = nil, pixelLimit: Int = Self.defaultPixelLimit, scale: Double? = nil,
                isStrict: Bool = false) {
        self.maxPixelSize = maxPixelSize
        self.pixelLimit = pixelLimit
        self.scale = scale
        self.isStrict = isStrict
    }

    /// Throws unless a `width` × `height` source is positive and within `pixelLimit`.
    /// Codecs call this with the header's size before allocating.
    public func checkSourceSize(width: Int, height: Int, format: ImageFormat) throws {
        guard width > 0, height > 0 else {
            throw ParseError.image("\(format) image has an invalid size \(width)×\(height)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= pixelLimit else {
            throw ParseError.image(
                "\(format) image is \(width)×\(height) pixels, over the pixel limit of \(pixelLimit)", kind: .limit
            )
        }
    }

    /// The size a `width` × `height` image should be delivered at: fitted within
    /// `maxPixelSize` on its longest side, aspect ratio kept, never enlarged.
    public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard let maxPixelSize, longest > max(maxPixelSize, 1) else { return (width, height) }
        let factor = Double(max(maxPixelSize, 1)) / Double(longest)
        return (max(1, Int((Double(width) * factor).rounded())), max(1, Int((Double(height) * factor).rounded())))
    }
}
