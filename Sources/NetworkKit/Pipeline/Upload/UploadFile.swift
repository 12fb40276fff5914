import Foundation

/// A request body sent from disk: the caller's file (`RequestBody.file`), or a multipart form
/// too large for memory, assembled into a temporary file that is removed when the request finishes.
struct UploadFile: Sendable {
    let url: URL
    let isTemporary: Bool

    /// The file to upload `body` from, if it is sent from disk. `builtBody` is what the request
    /// builder put in memory: a multipart form goes to disk only when the builder, which decides
    /// with `fitsInMemory`, left it out. With `encoding`, the file sent is a compressed copy
    /// (the builder compressed an in-memory body itself).
    static func make(for body: RequestBody, builtBody: Data?, encoding: ContentCoding?) throws(NetworkError) -> UploadFile? {
        let plain: UploadFile
        switch body {
        case .file(let url, _):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw .invalidRequest("cannot read the body file \(url.path)")
            }
            plain = UploadFile(url: url, isTemporary: false)
        case .multipart(let form):
            guard builtBody == nil else { return nil }
            let url = temporaryURL("multipart")
            do {
                try form.write(to: url)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw .invalidRequest("cannot assemble the multipart body: \(error)")
            }
            plain = UploadFile(url: url, isTemporary: true)
        default:
            return nil
        }
        guard let encoding else { return plain }
        defer { plain.removeIfTemporary() }
        let compressed = temporaryURL(encoding.rawValue)
        do {
            try Decompressor.compress(file: plain.url, to: compressed, coding: encoding)
        } catch {
            try? FileManager.default.removeItem(at: compressed)
            throw .bodyCompressionFailed(encoding, error)
        }
        return UploadFile(url: compressed, isTemporary: true)
    }

    /// A new file name in the temporary directory.
    private static func temporaryURL(_ kind: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("nk-\(kind)-\(UUID().uuidString)")
    }

    /// Whether `form` is small enough to send from memory.
    static func fitsInMemory(_ form: MultipartForm) throws(NetworkError) -> Bool {
        do {
            return try form.encodedLength() <= MultipartForm.memoryThreshold
        } catch {
            throw .invalidRequest("cannot read a multipart file: \(error.localizedDescription)")
        }
    }

    /// Removes the file if the kit made it.
    func removeIfTemporary() {
        if isTemporary { try? FileManager.default.removeItem(at: url) }
    }
}
