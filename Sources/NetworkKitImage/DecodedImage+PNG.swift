import CPNG
import Foundation
import NetworkKit

extension DecodedImage {
    /// The pixels encoded as an RGBA PNG (libpng), e.g. to save a decoded or downsampled image.
    /// - Throws: `ParseError(parser: "image")` when libpng refuses the image.
    public func pngData() throws -> Data {
        guard let width32 = UInt32(exactly: width), let height32 = UInt32(exactly: height),
              let stride = Int32(exactly: bytesPerRow) else {
            throw ParseError.image("\(width)×\(height) image is too large for PNG encoding")
        }
        let png = PNGImage()
        png.pointer.pointee.width = width32
        png.pointer.pointee.height = height32
        png.pointer.pointee.format = PNG.formatRGBA
        // A first guess with room for incompressible data; libpng reports the size it needs if short.
        var capacity = try PixelBuffer.byteCount(bytesPerRow + 1, height) + height / 8 + 1024
        for _ in 0..<2 {
            var output = Data(count: capacity)
            var written = capacity
            let succeeded = output.withUnsafeMutableBytes { buffer in
                pixels.withUnsafeBytes { source in
                    png_image_write_to_memory(png.pointer, buffer.baseAddress, &written, 0, source.baseAddress, stride, nil) != 0
                }
            }
            if succeeded {
                output.count = written
                return output
            }
            guard written > capacity else { break }
            capacity = written
        }
        throw ParseError.image("PNG encoding failed: \(png.message)")
    }
}
