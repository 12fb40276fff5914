import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: downloads to disk with resume, multipart uploads from disk, size and time limits.
extension DemoTour {
    var fileSteps: [Step] {
        [
            ("Download to disk (32 MB), streamed to a partial file and checked with SHA-256", {
                let folder = try DemoFolder()
                let expected = SHA256Hasher()
                for block in 0..<32 {
                    FixtureFile.bytes(seed: 1, offset: block << 20, count: 1 << 20).withUnsafeBytes { expected.update($0) }
                }
                let hex = expected.finalize().map { String(format: "%02x", $0) }.joined()
                let request = Request(path: "/files/demo.bin?size=\(32 << 20)", downloadTo: .directory(folder.url))
                request.download?.digest = FileDigest(hex: hex, makeHasher: { SHA256Hasher() })
                let file = try await service.send(request)
                return "\(file.url.lastPathComponent): \(file.byteCount) bytes, SHA-256 \(hex.prefix(12))… matched"
            }),
            ("Resume: the server drops the connection at 5 MB; the next start asks for the rest", {
                let folder = try DemoFolder()
                let destination = folder.url.appendingPathComponent("resumed.bin")
                let path = "/files/resumed.bin?size=\(8 << 20)&dropAt=\(5 << 20)&dropKey=\(UUID().uuidString)"
                let first = await service.result(of: Request(path: path, downloadTo: .file(destination)))
                guard case .failure(let error) = first else { throw DemoError.unexpected("the first attempt succeeded") }
                let file = try await service.send(Request(path: path, downloadTo: .file(destination)))
                return "first: \(error); second: \(file.head.status.code) from byte \(file.resumedFrom), \(file.byteCount) bytes in all"
            }),
            ("Multipart upload: a text field and a 12 MB file assembled on disk, parsed by multipart-kit", {
                let folder = try DemoFolder()
                let photo = folder.url.appendingPathComponent("photo.jpg")
                let bytes = FixtureFile.bytes(seed: 3, offset: 0, count: 12 << 20)
                try Data(bytes).write(to: photo)
                var form = MultipartForm()
                form.append("Ada", name: "author")
                try form.append(file: photo, name: "photo")
                let request = Request(path: "/upload/multipart", method: .post, parser: JSONParser(contentKeyPath: "parts"))
                request.body = .multipart(form)
                let uploads = Protected(0)
                request.addProgressHandler { _, progress in if progress.direction == .upload { uploads.withLock { $0 += 1 } } }
                let parts = try await service.completion(of: request).get().arrayValue ?? []
                // Name, size and CRC-32 of each part, as sent and as the server's parser saw them.
                let sent = ["author 3 \(PartChecksum.crc32(Array("Ada".utf8)))", "photo \(bytes.count) \(PartChecksum.crc32(bytes))"]
                let seen = parts.map { "\($0["name"]?.stringValue ?? "?") \($0["size"]?.intValue ?? -1) \($0["crc32"]?.intValue ?? -1)" }
                guard seen == sent else { throw DemoError.unexpected("sent \(sent), the server saw \(seen)") }
                let described = parts.map { part in
                    "\(part["name"]?.stringValue ?? "?") (\(part["contentType"]?.stringValue ?? "text"), \(part["size"]?.intValue ?? 0) B)"
                }
                return "server saw " + described.joined(separator: ", ") + ", sizes and CRC-32s as sent; "
                    + "\(uploads.snapshot) upload progress reports"
            }),
            ("Size limit: an endless body stops at maxResponseBytes", {
                let request = Request(path: "/endless")
                request.maxResponseBytes = 1 << 20
                return try await failure(of: request) { if case .responseTooLarge = $0 { true } else { false } }
            }),
            ("Time limit: a server dripping a byte every 200 ms, with a 600 ms limit", {
                let request = Request(path: "/drip?bytes=50&ms=200")
                request.timeLimit = .milliseconds(600)
                let outcome = try await failure(of: request) { if case .timeLimitExceeded = $0 { true } else { false } }
                return outcome + " (the idle timeout alone would never fire)"
            }),
        ]
    }
}

/// A temporary folder for a demo step, removed when the step ends.
final class DemoFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nk-demo-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
