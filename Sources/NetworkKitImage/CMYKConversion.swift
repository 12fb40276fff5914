/// Turns the 4-byte CMYK pixels libjpeg produces for CMYK/YCCK JPEGs into opaque RGBA, in place.
enum CMYKConversion {
    /// `inverted` is true for files with an Adobe APP14 marker (Photoshop and libjpeg write
    /// CMYK inverted: 255 means no ink), which is nearly all CMYK JPEGs.
    static func convertToRGBA(_ pixels: inout [UInt8], inverted: Bool) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index + 3 < buffer.count {
                var c = Int(buffer[index]), m = Int(buffer[index + 1]), y = Int(buffer[index + 2]), k = Int(buffer[index + 3])
                if !inverted { (c, m, y, k) = (255 - c, 255 - m, 255 - y, 255 - k) }
                // With inverted values, red = (1 - C)(1 - K) is simply c * k.
                buffer[index] = UInt8((c * k + 127) / 255)
                buffer[index + 1] = UInt8((m * k + 127) / 255)
                buffer[index + 2] = UInt8((y * k + 127) / 255)
                buffer[index + 3] = 255
                index += 4
            }
        }
    }
}
