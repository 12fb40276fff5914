import NetworkKit

/// The previews of a file decoded top-down (a sequential JPEG, a WebP): the rows decoded so far
/// into the final image's buffer, box-filtered to the preview size once each (the filter is kept
/// between previews), the rows below them transparent.
struct TopDownPreviews {
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

    /// The rows offered so far of `pixels` (`height` rows of `bytesPerRow` bytes, `width`
    /// pixels), handed to the filter by `add` (which may convert them first; without it they are
    /// RGBA8 as they are), as an image of `format` whose source is `sourceWidth` × `sourceHeight`.
    mutating func preview(
        of pixels: UnsafePointer<UInt8>, width: Int, height: Int, bytesPerRow: Int,
        format: ImageFormat, orientation: ImageOrientation = .up, sourceWidth: Int, sourceHeight: Int,
        add: ((_ rows: UnsafePointer<UInt8>, _ count: Int, _ filter: inout BoxFilter) -> Void)? = nil
    ) throws -> DecodedImage {
        let target = ImageDecodingOptions(maxPixelSize: maxPixelSize).targetSize(width: width, height: height)
        var filter = try filter ?? BoxFilter(sourceWidth: width, sourceHeight: height,
                                             targetWidth: target.width, targetHeight: target.height)
        let count = offeredRows - filteredRows
        let first = pixels + filteredRows * bytesPerRow
        if count > 0, let add {
            add(first, count, &filter)
        } else {
            for row in 0..<max(count, 0) { filter.add(row: first + row * bytesPerRow) }
        }
        filteredRows = offeredRows
        self.filter = filter
        return try DecodedImage(
            width: target.width, height: target.height, pixels: filter.pixels, format: format,
            orientation: orientation, sourceWidth: sourceWidth, sourceHeight: sourceHeight
        )
    }
}
