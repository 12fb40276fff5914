import Foundation

/// Where and how a request saves its response body to disk instead of memory.
///
/// ```swift
/// let request = Request(url: bigZip, downloadTo: .directory(downloads))
/// request.download?.replacesExisting = true
/// let file = try await service.send(request)       // DownloadedFile: url, head, byteCount…
/// ```
///
/// The body streams into a partial file next to the destination as it arrives (memory stays
/// flat), which is moved into place once complete and checked. A download that breaks keeps the
/// partial file and what it knows about it, and the next start of the same download resumes with
/// `Range` and `If-Range` (see <doc:Transfers>).
public struct Download: Sendable {
    /// Where the file goes.
    public enum Destination: Sendable, Equatable {
        /// This file.
        case file(URL)
        /// This directory, under the name the server gives (`Content-Disposition`, else the URL's
        /// last path component), made safe and never overwriting: `report (1).pdf` on a collision.
        case directory(URL)

        /// The file or the directory.
        var url: URL {
            switch self {
            case .file(let url), .directory(let url): return url
            }
        }
    }

    /// Where the file goes.
    public var destination: Destination
    /// Whether an existing file at the destination may be replaced (false: the download fails
    /// with `DownloadError.Reason.destinationExists` and the file is untouched).
    public var replacesExisting = false
    /// Whether missing parent directories are created.
    public var createsDirectories = false
    /// Whether a broken download keeps its partial file and the next start resumes it.
    public var resumes = true
    /// The length the file must have, if known in advance.
    public var expectedLength: Int64?
    /// A digest the finished file must have.
    public var digest: FileDigest?

    /// A download to `destination`.
    public init(to destination: Destination) {
        self.destination = destination
    }

    /// The directory the file (and its partial file) lives in.
    var directory: URL {
        if case .file(let url) = destination { return url.deletingLastPathComponent() }
        return destination.url
    }
}

/// A digest a downloaded file must have, computed by a hasher the caller supplies (for
/// SHA-256, e.g. swift-crypto's `SHA256`; NetworkKit itself has no cryptography).
public struct FileDigest: Sendable {
    /// The expected digest as lowercase or uppercase hex.
    public let expected: String
    /// Makes a fresh hasher for one file.
    public let makeHasher: @Sendable () -> any DigestHasher

    /// A digest check against `hex`, hashing with what `makeHasher` returns.
    public init(hex: String, makeHasher: @escaping @Sendable () -> any DigestHasher) {
        expected = hex.lowercased()
        self.makeHasher = makeHasher
    }
}

/// Computes a digest from bytes fed in order.
public protocol DigestHasher: AnyObject {
    /// Adds the next bytes.
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The digest of everything added.
    func finalize() -> [UInt8]
}

/// Parses a finished download: the value is the `DownloadedFile` itself.
public struct DownloadParser: ResponseParser {
    /// Creates the parser.
    public init() {}

    /// The file the response was saved to.
    public func parse(_ response: Response) throws -> DownloadedFile {
        guard let file = response.downloadedFile else {
            throw ParseError(parser: "DownloadParser", reason: "the request was not a download", kind: .custom)
        }
        return file
    }

    /// Taking the value out of the response is instant.
    public var isLightweight: Bool { true }
}

/// Reads a downloaded file into memory and hands it to another parser (e.g. `JSONParser`), on
/// the parsing queue like every parser. For files too large for memory, write a parser that
/// reads `Response.downloadedFile` itself.
public struct FileContentsParser<Inner: ResponseParser>: ResponseParser {
    /// The parser the file's bytes go to.
    public let inner: Inner

    /// Parses the file's contents with `inner`.
    public init(_ inner: Inner) {
        self.inner = inner
    }

    /// Reads the file and parses it with `inner`.
    public func parse(_ response: Response) throws -> Inner.Output {
        guard let file = response.downloadedFile else { return try inner.parse(response) }
        var contents = response
        contents.data = try Data(contentsOf: file.url)
        return try inner.parse(contents)
    }
}
