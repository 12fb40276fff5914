import Foundation

/// A file that has arrived: where it is and the response it came from.
public struct DownloadedFile: Sendable {
    /// The file, at its final place.
    public let url: URL
    /// The response head of the transfer that completed it.
    public let head: ResponseHead
    /// The file's length.
    public let byteCount: Int64
    /// How many bytes were already on disk from an earlier attempt (0 for a fresh download).
    public let resumedFrom: Int64
}
