import NetworkKit

/// Overflow-checked sizes and Swift-owned pixel buffers that decoders write into directly.
enum PixelBuffer {
    /// `a * b`, or a `ParseError` when it overflows.
    static func byteCount(_ a: Int, _ b: Int) throws -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow, a >= 0, b >= 0 else {
            throw ParseError.image("image size \(a) × \(b) overflows")
        }
        return product
    }

    /// The row length and total size of an RGBA8 image, overflow-checked.
    static func rgbaLayout(width: Int, height: Int) throws -> (bytesPerRow: Int, count: Int) {
        let bytesPerRow = try byteCount(width, 4)
        return (bytesPerRow, try byteCount(bytesPerRow, height))
    }

    /// A `count`-byte array whose contents `fill` writes in place; no copy, no zeroing.
    /// `fill` must initialize every byte or throw.
    static func make(
        count: Int,
        _ fill: (UnsafeMutableBufferPointer<UInt8>) throws -> Void
    ) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try fill(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
    }
}
