/// How `DecodedImage.pixels` lays out one pixel.
public enum PixelFormat: Sendable, Hashable {
    /// Four 8-bit channels in the order red, green, blue, alpha; straight (not premultiplied)
    /// alpha; sRGB as stored in the file. Every built-in codec produces this: gray, 16-bit,
    /// palette and CMYK sources are converted.
    case rgba8

    /// Bytes per pixel.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: 4
        }
    }
}
