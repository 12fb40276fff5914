import Foundation

/// Why a download to disk failed after its response arrived, with the file it concerns.
public struct DownloadError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The partial file could not be created or written (disk full, no permission…); the
        /// underlying error says which. Bytes already written are kept for a resume.
        case cannotWrite
        /// The partial file on disk could not be read back to resume a digest check over it;
        /// the underlying error says why. The partial file is kept.
        case cannotRead
        /// The destination exists and the download may not replace it.
        case destinationExists
        /// The finished file had another length than announced or expected; it was removed.
        case lengthMismatch(expected: Int64, received: Int64)
        /// The finished file's digest was not the expected one; it was removed.
        case digestMismatch(expected: String, computed: String)
        /// The server's file name could not be made into a safe name in the directory.
        case invalidFileName(String)
        /// The server answered a resume with a range that does not continue the partial file, and
        /// again after the request's one restart from zero (retries in between included).
        case rangeMismatch(String)
    }

    /// What went wrong.
    public let reason: Reason
    /// The file concerned: the destination, or the partial file for write errors.
    public let file: URL
    /// The file system's own error, when there was one.
    public let underlying: (any Error)?

    /// Creates an error.
    public init(_ reason: Reason, file: URL, underlying: (any Error)? = nil) {
        self.reason = reason
        self.file = file
        self.underlying = underlying
    }

    /// One line fit for a log.
    public var description: String {
        let what: String
        switch reason {
        case .cannotWrite: what = "cannot write"
        case .cannotRead: what = "cannot read back the partial file"
        case .destinationExists: what = "destination exists (set replacesExisting to replace it)"
        case .lengthMismatch(let expected, let received): what = "expected \(expected) bytes, received \(received)"
        case .digestMismatch(let expected, let computed): what = "digest \(computed), expected \(expected)"
        case .invalidFileName(let name): what = "unusable file name \(name.debugDescription)"
        case .rangeMismatch(let range): what = "resume answered with a range that does not continue the file: \(range)"
        }
        let cause = underlying.map { ": \($0.localizedDescription)" } ?? ""
        return "\(file.path): \(what)\(cause)"
    }
}
