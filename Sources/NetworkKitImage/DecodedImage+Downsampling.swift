extension DecodedImage {
    /// This image fitted within `options.maxPixelSize` by box filtering (`BoxFilter`), or itself
    /// when it already fits.
    func downsampled(for options: ImageDecodingOptions) throws -> DecodedImage {
        let target = options.targetSize(width: width, height: height)
        guard target != (width, height) else { return self }
        var filter = try BoxFilter(sourceWidth: width, sourceHeight: height, targetWidth: target.width, targetHeight: target.height)
        pixels.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            for row in 0..<height { filter.add(row: base + row * bytesPerRow) }
        }
        return try DecodedImage(
            width: target.width, height: target.height, pixels: filter.pixels,
            scale: scale, format: format, frameCount: frameCount, orientation: orientation,
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, isIncomplete: isIncomplete, warnings: warnings
        )
    }
}
