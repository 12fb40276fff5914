import NetworkKit

/// Why an image stream ended without its final image, and the last preview it had delivered,
/// which an app can keep showing.
///
/// ``ImageStream`` fails with it whatever stopped the stream (a dropped connection, a body that
/// ended before the image did, a corrupt file, a limit); ``IncrementalImageParser`` puts it under
/// each `ParseError` it throws, for item handlers.
public struct ImageStreamError: Error, Sendable, CustomStringConvertible {
    /// What stopped the stream.
    public let error: NetworkError
    /// The last preview delivered before, if any.
    public let lastPreview: ImageStreamItem?

    /// Creates the error.
    public init(error: NetworkError, lastPreview: ImageStreamItem?) {
        self.error = error
        self.lastPreview = lastPreview
    }

    /// The error, and the stage of the last preview.
    public var description: String {
        guard let lastPreview else { return "\(error) (no preview)" }
        return "\(error) (last preview: \(lastPreview.stage), \(lastPreview.bytesReceived) bytes in)"
    }
}
