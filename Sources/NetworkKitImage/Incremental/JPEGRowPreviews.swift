import NetworkKit

/// The previews of a sequential JPEG: the rows decoded so far into the final image's buffer,
/// box-filtered to the preview size once each (the filter is kept between previews), the rows
/// below them transparent.
struct JPEGRowPreviews {
    private let maxPixelSize: Int?
    private var filter: BoxFilter?
    /// Rows added to the filter, and the most rows offered for a preview.
    private var filteredRows = 0
    private var offeredRows = 0

    /// Previews at most `maxPixelSize` on their longest side.
    init(maxPixelSize: Int?) {
        self.maxPixelSize = maxPixelSize
    }

    /// The stage to offer when `rowsDone` of the `outputHeight` rows are decoded: rows of the
    /// source image, nil when no row is new or all are (the final image shows them).
    mutating func newRows(_ rowsDone: Int, outputHeight: Int, sourceHeight: Int) -> ImageStreamStage? {
        guard rowsDone > offeredRows, rowsDone < outputHeight else { return nil }
        offeredRows = rowsDone
        return .rows(rowsDone * sourceHeight / max(outputHeight, 1))
    }

    /// The rows offered so far of `pixels` (`height` rows of `bytesPerRow` bytes, `width` pixels).
    mutating func preview(of pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int,
                          header: JPEGHeader) throws -> DecodedImage {
        let target = ImageDecodingOptions(maxPixelSize: maxPixelSize).targetSize(width: width, height: height)
        var filter = try filter ?? BoxFilter(sourceWidth: width, sourceHeight: height,
                                             targetWidth: target.width, targetHeight: target.height)
        let first = filteredRows, count = offeredRows - filteredRows
        pixels.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, count > 0 else { return }
            header.addRows(base + first * bytesPerRow, count: count, stride: bytesPerRow, width: width, to: &filter)
        }
        filteredRows = offeredRows
        self.filter = filter
        return try DecodedImage(
            width: target.width, height: target.height, pixels: filter.pixels, format: .jpeg,
            orientation: header.orientation, sourceWidth: header.sourceWidth, sourceHeight: header.sourceHeight
        )
    }
}
