import Foundation

/// The on-disk side of one download: the partial file beside the destination, what is known
/// about it (URL, validator, length) in a small JSON file next to it, and the final move.
///
/// The pipeline prepares it before a transfer and finishes it after; the transport's events
/// write to it in between. Both go through `state`'s lock.
final class PartialDownload: Sendable {
    /// What the head of a response means for the file.
    enum Start {
        /// Write the body (after what is on disk, for a `206` that continues the file); the whole
        /// file will be `total` bytes long, when the server said.
        case write(total: Int64?)
        /// The response cannot continue the file (a range that does not line up, `416`): start
        /// again from zero with a new request.
        case restart(String)
        /// Not a success status: the body is an error body, kept in memory, the file untouched.
        case notFile
    }

    /// What the partial file is known to be, saved beside it so a later start can resume.
    struct Record: Codable, Equatable {
        var url: String
        var etag: String?
        var lastModified: String?
        var length: Int64?

        /// The value for `If-Range`: a strong ETag, else the date.
        var validator: String? {
            if let etag, !etag.hasPrefix("W/") { return etag }
            return lastModified
        }
    }

    private struct State {
        var handle: FileHandle?
        /// Bytes of the file on disk, from zero.
        var written: Int64 = 0
        /// Where this attempt's body starts in the file (what a resume found on disk).
        var offset: Int64 = 0
        var record: Record?
        /// The range asked for, if any.
        var askedFrom: Int64?
        /// Hashes the file as it is written, when the download checks a digest.
        var hasher: (any DigestHasher)?
    }

    let options: Download
    let sourceURL: String
    /// The partial file and its record, in the destination's directory (same file system, so
    /// the final move is a rename).
    let partialURL: URL
    let recordURL: URL
    private let state = Protected(State())

    init(options: Download, sourceURL: String) {
        self.options = options
        self.sourceURL = sourceURL
        let key = Self.key(sourceURL + "\u{0}" + options.destination.url.standardizedFileURL.path)
        partialURL = options.directory.appendingPathComponent(".nkdownload-\(key)")
        recordURL = options.directory.appendingPathComponent(".nkdownload-\(key).json")
    }

    /// Before a transfer: checks the destination and returns the headers that resume what is
    /// on disk (`Range` and `If-Range`), or none.
    func prepare() throws(NetworkError) -> HTTPFields {
        let directory = options.directory
        if options.createsDirectories {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw .download(DownloadError(.cannotWrite, file: directory, underlying: error))
            }
        }
        if case .file(let url) = options.destination, !options.replacesExisting,
           FileManager.default.fileExists(atPath: url.path) {
            throw .download(DownloadError(.destinationExists, file: url))
        }
        guard options.resumes, let record = readRecord(), record.url == sourceURL, let validator = record.validator,
              let size = try? partialURL.fileSize(), size > 0 else {
            state.withLock { $0.askedFrom = nil; $0.record = nil }
            return [:]
        }
        state.withLock { $0.askedFrom = size; $0.record = record }
        return [.range: "bytes=\(size)-", .ifRange: validator]
    }

    /// The response head arrived: decide where its body goes, and open the partial file.
    func begin(_ head: ResponseHead) throws(NetworkError) -> Start {
        if head.status == .rangeNotSatisfiable { return .restart("416 for a range of a file that is no longer that long") }
        guard head.status.kind == .successful else { return .notFile }
        let askedFrom = state.withLock { $0.askedFrom }
        var offset: Int64 = 0
        var total = head.deliveredLength
        if head.status == .partialContent {
            guard let askedFrom, let range = ContentRange(head.headerFields[.contentRange]), range.start == askedFrom else {
                return .restart("Content-Range \(head.headerFields[.contentRange] ?? "missing")")
            }
            offset = askedFrom
            total = range.total
        }
        let record = Record(url: sourceURL, etag: head.headerFields[.eTag], lastModified: head.headerFields[.lastModified],
                            length: total)
        // The digest covers the bytes already on disk, read once here, and then each chunk as it
        // is written: the finished file is not read again. Read before the file is cut to
        // `offset`, which would pad a file grown shorter meanwhile with zeros.
        let hasher = options.digest?.makeHasher()
        if let hasher, offset > 0 {
            do {
                try hash(partialURL, upTo: offset, into: hasher)
            } catch {
                throw .download(DownloadError(.cannotRead, file: partialURL, underlying: error))
            }
        }
        do {
            if offset == 0 {
                try? FileManager.default.removeItem(at: partialURL)
                guard FileManager.default.createFile(atPath: partialURL.path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            let handle = try FileHandle(forWritingTo: partialURL)
            // Truncating to zero would make ext4 write the whole file back synchronously when it
            // is closed (its auto_da_alloc rule for "truncate and rewrite"): about a second per
            // GiB. A fresh file is empty already; a resumed one is cut to where it continues.
            if offset > 0 { try handle.truncate(atOffset: UInt64(offset)) }
            try handle.seekToEnd()
            // Saved before any byte, so a break at any point leaves a resumable pair.
            if options.resumes, record.validator != nil {
                try JSONEncoder().encode(record).write(to: recordURL, options: .atomic)
            } else {
                try? FileManager.default.removeItem(at: recordURL)
            }
            state.withLock { state in
                state.handle = handle
                state.offset = offset
                state.written = offset
                state.record = record
                state.hasher = hasher
            }
        } catch {
            throw .download(DownloadError(.cannotWrite, file: partialURL, underlying: error))
        }
        return .write(total: total)
    }

    /// Appends a chunk; returns the file's length so far. On a write error the file is cut back
    /// to what was written whole, so it stays sound for a resume.
    func write(_ chunk: Data) throws(NetworkError) -> Int64 {
        let checked = state.withLock { state -> Result<Int64, NetworkError> in
            guard let handle = state.handle else { return .success(state.written) }
            do {
                try Self.write(chunk, to: handle.fileDescriptor)
                if let hasher = state.hasher { chunk.withUnsafeBytes { hasher.update($0) } }
                state.written += Int64(chunk.count)
                return .success(state.written)
            } catch {
                try? handle.truncate(atOffset: UInt64(state.written))
                return .failure(.download(DownloadError(.cannotWrite, file: partialURL, underlying: error)))
            }
        }
        return try checked.get()
    }

    /// After a complete transfer: checks length and digest, then, when `commit` allows it (the
    /// request was not stopped meanwhile), moves the file into place and forgets the record. A
    /// file that fails a check is removed; one whose request was stopped is kept for a resume,
    /// as a broken transfer's is, and `finish` throws `.cancelled`.
    func finish(_ head: ResponseHead, commit: () -> Bool) throws(NetworkError) -> DownloadedFile {
        let (written, offset, record) = close()
        let hasher = state.withLock { $0.hasher }
        let expected = options.expectedLength ?? record?.length
        if let expected, expected != written {
            discard()
            throw .download(DownloadError(.lengthMismatch(expected: expected, received: written), file: options.destination.url))
        }
        if let digest = options.digest {
            let computed = hasher?.finalize().map { String(format: "%02x", $0) }.joined() ?? ""
            guard computed == digest.expected else {
                discard()
                throw .download(DownloadError(.digestMismatch(expected: digest.expected, computed: computed),
                                              file: options.destination.url))
            }
        }
        let destination = try finalURL(head)
        guard commit() else {
            keepForResume(record)
            throw .cancelled
        }
        try moveIntoPlace(destination)
        try? FileManager.default.removeItem(at: recordURL)
        return DownloadedFile(url: destination, head: head, byteCount: written, resumedFrom: offset)
    }

    /// After a broken transfer: closes the file and keeps it with its record for a resume,
    /// unless the download does not resume or the server gave nothing to resume against.
    func suspend() {
        keepForResume(close().record)
    }

    /// Keeps the closed partial file and `record` for a resume, or removes both when the
    /// download does not resume or the server gave nothing to resume against.
    private func keepForResume(_ record: Record?) {
        if !(options.resumes && record?.validator != nil) { discard() }
    }

    /// Removes the partial file and its record.
    func discard() {
        _ = close()
        try? FileManager.default.removeItem(at: partialURL)
        try? FileManager.default.removeItem(at: recordURL)
    }

    // MARK: - Helpers

    /// Closes the partial file, if open; returns what is known about it.
    private func close() -> (written: Int64, offset: Int64, record: Record?) {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
            return (state.written, state.offset, state.record)
        }
    }

    private func finalURL(_ head: ResponseHead) throws(NetworkError) -> URL {
        switch options.destination {
        case .file(let url):
            return url
        case .directory(let directory):
            let name = DownloadFileName.suggested(contentDisposition: head.headerFields[.contentDisposition],
                                                  url: head.url ?? URL(string: sourceURL))
            return options.replacesExisting ? directory.appendingPathComponent(name) : DownloadFileName.free(name, in: directory)
        }
    }

    /// A rename within the directory: atomic, and replacing only when allowed.
    private func moveIntoPlace(_ destination: URL) throws(NetworkError) {
        if !options.replacesExisting, FileManager.default.fileExists(atPath: destination.path) {
            throw .download(DownloadError(.destinationExists, file: destination))
        }
        guard rename(partialURL.path, destination.path) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            throw .download(DownloadError(.cannotWrite, file: destination, underlying: error))
        }
    }

    /// Feeds the first `length` bytes of `file` to `hasher`, a megabyte at a time.
    private func hash(_ file: URL, upTo length: Int64, into hasher: any DigestHasher) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var left = length
        while left > 0, let block = try handle.read(upToCount: Int(min(left, 1 << 20))), !block.isEmpty {
            block.withUnsafeBytes { hasher.update($0) }
            left -= Int64(block.count)
        }
        // Shorter than it was a moment ago: another process is at the file.
        if left > 0 { throw CocoaError(.fileReadCorruptFile) }
    }

    /// All of `data` to `descriptor`, through `write(2)`: `FileHandle.write(contentsOf:)` is
    /// generic and, called from outside Foundation, unspecialized — it costs more than the
    /// system call itself per 16 KB chunk.
    private static func write(_ data: Data, to descriptor: Int32) throws {
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var next = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = Foundation.write(descriptor, next, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                }
                next += written
                left -= written
            }
        }
    }

    private func readRecord() -> Record? {
        guard let data = try? Data(contentsOf: recordURL) else { return nil }
        return try? JSONDecoder().decode(Record.self, from: data)
    }

    /// FNV-1a, 64 bits, as hex: a stable short name for the partial file (not a security measure).
    private static func key(_ text: String) -> String {
        FNV1a.hex(text)
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else { return nil }
        self.start = start
        self.end = end
        total = parts[1] == "*" ? nil : Int64(parts[1])
    }
}
