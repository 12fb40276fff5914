#if canImport(CoreGraphics)
import CoreGraphics
import Foundation

extension DecodedImage {
    /// The pixels as a `CGImage` (sRGB, straight alpha last), or `nil` if CoreGraphics refuses them.
    /// The orientation is not applied; pass `orientation` on to the view that draws it.
    public func cgImage() -> CGImage? {
        guard pixelFormat == .rgba8,
              let provider = CGDataProvider(data: Data(pixels) as CFData),
              let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
            provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent
        )
    }
}
#endif
