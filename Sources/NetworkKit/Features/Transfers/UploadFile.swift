import Foundation

/// A request body sent from disk: the caller's file (`RequestBody.file`), or a multipart form
/// too large for memory, assembled into a temporary file that is removed when the request lands.
struct UploadFile: Sendable {
    let url: URL
    let isTemporary: Bool

    /// The file to upload `body` from, if it is sent from disk. `builtBody` is what the request
    /// builder put in memory: a multipart form goes to disk only when the builder, which decides
    /// with `fitsInMemory`, left it out.
    static func make(for body: RequestBody, builtBody: Data?) throws(NetworkError) -> UploadFile? {
        switch body {
        case .file(let url, _):
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw .invalidRequest("cannot read the body file \(url.path)")
            }
            return UploadFile(url: url, isTemporary: false)
        case .multipart(let form):
            guard builtBody == nil else { return nil }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("nk-multipart-\(UUID().uuidString)")
            do {
                try form.write(to: url)
            } catch {
                try? FileManager.default.removeItem(at: url)
                throw .invalidRequest("cannot assemble the multipart body: \(error)")
            }
            return UploadFile(url: url, isTemporary: true)
        default:
            return nil
        }
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
