extension DecodedImage {
    /// This image fitted within `options.maxPixelSize` by box filtering (each output pixel is
    /// the average of the source pixels it covers, colours weighted by alpha so that
    /// transparent pixels lend the edge no colour), or itself when it already fits.
    func downsampled(for options: ImageDecodingOptions) throws -> DecodedImage {
        let target = options.targetSize(width: width, height: height)
        guard target != (width, height) else { return self }
        let layout = try PixelBuffer.rgbaLayout(width: target.width, height: target.height)
        let output = try pixels.withUnsafeBufferPointer { source in
            try PixelBuffer.make(count: layout.count) { destination in
                boxFilter(source, into: destination, width: target.width, height: target.height)
            }
        }
        return try DecodedImage(
            width: target.width, height: target.height, bytesPerRow: layout.bytesPerRow, pixels: output,
            scale: scale, format: format, frameCount: frameCount, orientation: orientation,
            sourceWidth: sourceWidth, sourceHeight: sourceHeight
        )
    }

    /// Averages the source block under each destination pixel: alpha plainly, colours weighted
    /// by alpha (the average of premultiplied colours, divided by the average alpha).
    private func boxFilter(
        _ source: UnsafeBufferPointer<UInt8>,
        into destination: UnsafeMutableBufferPointer<UInt8>,
        width targetWidth: Int,
        height targetHeight: Int
    ) {
        // Column spans are the same for every row: compute them once.
        let columns = (0..<targetWidth).map { span($0, target: targetWidth, source: width) }
        let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: targetWidth * 4)
        defer { sums.deallocate() }
        for y in 0..<targetHeight {
            let rows = span(y, target: targetHeight, source: height)
            sums.initialize(repeating: 0)
            for row in rows {
                let rowStart = row * bytesPerRow
                for x in 0..<targetWidth {
                    var red = 0, green = 0, blue = 0, alpha = 0
                    for column in columns[x] {
                        let pixel = rowStart + column * 4
                        let weight = Int(source[pixel + 3])
                        red += Int(source[pixel]) * weight
                        green += Int(source[pixel + 1]) * weight
                        blue += Int(source[pixel + 2]) * weight
                        alpha += weight
                    }
                    sums[x * 4] += red
                    sums[x * 4 + 1] += green
                    sums[x * 4 + 2] += blue
                    sums[x * 4 + 3] += alpha
                }
            }
            let outputRow = y * targetWidth * 4
            for x in 0..<targetWidth {
                let area = columns[x].count * rows.count
                let alpha = sums[x * 4 + 3]
                for channel in 0..<3 {
                    // Opaque blocks give the plain average: (Σc·255 + ⌊255·area/2⌋) / (255·area).
                    destination[outputRow + x * 4 + channel] = alpha == 0 ? 0 : UInt8((sums[x * 4 + channel] + alpha / 2) / alpha)
                }
                destination[outputRow + x * 4 + 3] = UInt8((alpha + area / 2) / area)
            }
        }
    }

    /// The source indices that destination index `index` covers (never empty).
    private func span(_ index: Int, target: Int, source: Int) -> Range<Int> {
        let start = index * source / target
        let end = max((index + 1) * source / target, start + 1)
        return start..<min(end, source)
    }
}
