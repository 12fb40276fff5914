/// One image of an image stream (``IncrementalImageParser``): a preview of what has arrived so
/// far, or the final image, which comes last.
public struct ImageStreamItem: Sendable {
    /// The pixels. A preview is fitted within ``ImagePreviewPolicy/maxPixelSize``; the final
    /// image is what ``ImageParser`` decodes from the whole body.
    public let image: DecodedImage
    /// What the image shows: a scan, a pass, the top rows, or everything.
    public let stage: ImageStreamStage
    /// The bytes of the body that had arrived when the image was made.
    public let bytesReceived: Int64

    /// Creates an item.
    public init(image: DecodedImage, stage: ImageStreamStage, bytesReceived: Int64) {
        self.image = image
        self.stage = stage
        self.bytesReceived = bytesReceived
    }

    /// True for the final image, the last item of a stream.
    public var isFinal: Bool { stage == .final }
}

/// How far into the file an image of an image stream shows.
public enum ImageStreamStage: Sendable, Hashable {
    /// A progressive JPEG as of its first `n` scans (1 is the first).
    case scan(Int)
    /// An Adam7-interlaced PNG after its pass `n` (1 to 7).
    case pass(Int)
    /// The top `n` rows of the image in the file (a sequential JPEG or a WebP, top-down); the
    /// rows below them are transparent.
    case rows(Int)
    /// The whole image: the final item.
    case final
}
