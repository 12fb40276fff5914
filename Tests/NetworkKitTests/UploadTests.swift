import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Multipart and file uploads, checked by the fixture server's multipart-kit parser, which
/// answers each part's name, file name, type, size and CRC-32.
@Suite("Uploads")
struct UploadTests {
    struct Part: Equatable {
        var name: String
        var filename: String?
        var contentType: String?
        var size: Int
        var crc32: Int
    }

    static func crc(_ data: Data) -> Int {
        Int(data.withUnsafeBytes { PartChecksum.crc32($0) })
    }

    static func parts(_ json: JSON) -> [Part] {
        json["parts"]?.arrayValue?.map { part in
            Part(name: part["name"]?.stringValue ?? "", filename: part["filename"]?.stringValue,
                 contentType: part["contentType"]?.stringValue, size: Int(part["size"]?.intValue ?? -1),
                 crc32: Int(part["crc32"]?.intValue ?? -1))
        } ?? []
    }

    @Test("text fields and data parts arrive whole, named and typed", arguments: TransportKind.allCases)
    func dataParts(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let photo = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var form = MultipartForm()
        form.append("Ada Lovelace", name: "author")
        form.append(photo, name: "photo", fileName: "cat.png")
        form.append(Data("{\"a\":1}".utf8), name: "meta", fileName: "meta.json", contentType: "application/json")
        let request = Request(path: "/upload/multipart", method: .post, parser: JSONParser())
        request.body = .multipart(form)
        let parts = Self.parts(try await fixture.service.send(request))
        #expect(parts == [
            Part(name: "author", filename: nil, contentType: nil, size: 12, crc32: Self.crc(Data("Ada Lovelace".utf8))),
            Part(name: "photo", filename: "cat.png", contentType: "image/png", size: 50_000, crc32: Self.crc(photo)),
            Part(name: "meta", filename: "meta.json", contentType: "application/json", size: 7, crc32: Self.crc(Data("{\"a\":1}".utf8))),
        ])
    }

    @Test("names with quotes and line breaks cannot break the part header", arguments: TransportKind.allCases)
    func escapedNames(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        var form = MultipartForm()
        // "\r\u{485}" is one Character that is not "\r": it went out raw until fuzz-multipart found it.
        form.append(Data("x".utf8), name: "a\"b\r\nc\r\u{485}", fileName: "evil\".txt")
        let request = Request(path: "/upload/multipart", method: .post, parser: JSONParser())
        request.body = .multipart(form)
        let parts = Self.parts(try await fixture.service.send(request))
        #expect(parts.count == 1)
        #expect(parts.first?.name == "a%22b%0D%0Ac%0D\u{485}")
        #expect(parts.first?.filename == "evil%22.txt")
        #expect(parts.first?.contentType == "text/plain")
    }

    @Test("a 100 MB file part streams from disk: memory flat, progress to 100 %, temp file removed", arguments: TransportKind.allCases)
    func largeFilePart(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let folder = try TestFolder()
        let file = folder.url.appendingPathComponent("big.bin")
        // Under a sanitizer (`scripts/sanitize` sets NK_SANITIZER) everything runs many times
        // slower and resident memory measures the sanitizer's shadow memory: 10 MB then, and no
        // memory bound.
        let underSanitizer = ProcessInfo.processInfo.environment["NK_SANITIZER"] != nil
        let size = (underSanitizer ? 10 : 100) * 1024 * 1024
        try #require(FileManager.default.createFile(atPath: file.path, contents: nil), "cannot create \(file.path)")
        let handle = try FileHandle(forWritingTo: file)
        var crc: UInt32 = 0
        for block in 0..<(size >> 20) {
            let bytes = FixtureFile.bytes(seed: 7, offset: block << 20, count: 1 << 20)
            crc = bytes.withUnsafeBytes { PartChecksum.crc32($0, continuing: crc) }
            try handle.write(contentsOf: Data(bytes))
        }
        try handle.close()

        var form = MultipartForm()
        form.append("big", name: "label")
        try form.append(file: file, name: "upload")
        let request = Request(path: "/upload/multipart", method: .post, parser: JSONParser())
        request.body = .multipart(form)
        request.timeLimit = .seconds(300)
        // The server answers once it has read what it buffered, which can lag the upload on a
        // busy machine or under a sanitizer.
        request.timeout = .seconds(60)
        let progress = Recorder<TransferProgress>()
        // Memory at the halfway mark, against memory at the end: a body held in memory grows by
        // half the file in that time, a streamed one not at all. (A bound from the start fails
        // for nothing: every other suite allocates in this process during the first seconds.)
        let halfway = Protected<Int?>(nil)
        request.addProgressHandler { _, value in
            guard value.direction == .upload else { return }
            progress.append(value)
            if let total = value.totalBytes, value.completedBytes * 2 >= total {
                halfway.withLock { $0 = $0 ?? ResidentMemory.current }
            }
        }
        let bodyFiles = BodyFileRecorder()
        request.interceptors = [bodyFiles]
        let (json, end) = try await MemoryHeavy.exclusive {
            (try await fixture.service.send(request), ResidentMemory.current)
        }
        let parts = Self.parts(json)
        #expect(parts.last == Part(name: "upload", filename: "big.bin", contentType: "application/octet-stream",
                                   size: size, crc32: Int(crc)))
        if !underSanitizer {  // no memory bound under a sanitizer: see above
            if let middle = halfway.snapshot, let end {
                #expect(end - middle < size / 4, "RSS grew by \(end - middle) bytes over the second half of the upload")
            } else {
                Issue.record("no RSS reading (halfway: \(String(describing: halfway.snapshot)), end: \(String(describing: end)))")
            }
        }
        let last = try #require(progress.all.last)
        #expect(last.completedBytes == last.totalBytes)
        #expect(last.completedBytes > Int64(size))
        let assembled = try #require(bodyFiles.files.first, "no body file reached the interceptors")
        #expect(!FileManager.default.fileExists(atPath: assembled.path), "the assembled body file was not removed: \(assembled.path)")
    }

    @Test("a file body streams from disk with its content type", arguments: TransportKind.allCases)
    func fileBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let folder = try TestFolder()
        let file = folder.url.appendingPathComponent("body.txt")
        try Data("hello from disk".utf8).write(to: file)
        let request = Request(path: "/echo", method: .put, parser: JSONParser())
        request.body = .file(file, contentType: "text/plain")
        let echo = try await fixture.service.send(request)
        #expect(echo["body"] == "hello from disk")
        #expect(echo["headers"]?["Content-Type"] == "text/plain")
    }

    @Test("a file body is compressed from disk when asked, and its compressed copy removed", arguments: TransportKind.allCases)
    func compressedFileBody(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let folder = try TestFolder()
        let file = folder.url.appendingPathComponent("body.txt")
        let plain = Data(String(repeating: "NetworkKit streams this from disk. ", count: 4_000).utf8)
        try plain.write(to: file)
        let request = Request(path: "/echo", method: .put, parser: JSONParser())
        request.body = .file(file, contentType: "text/plain")
        request.bodyEncoding = .gzip
        let bodyFiles = BodyFileRecorder()
        request.interceptors = [bodyFiles]
        let echo = try await MemoryHeavy.exclusive { try await fixture.service.send(request) }
        #expect(echo["headers"]?["Content-Encoding"] == "gzip")
        #expect(echo["headers"]?["Content-Type"] == "text/plain")
        let sent = try #require(echo["bodyLength"]?.intValue)
        #expect(sent > 0 && sent < Int64(plain.count / 20), "sent \(sent) bytes for \(plain.count)")
        let compressed = try #require(bodyFiles.files.first, "no body file reached the interceptors")
        #expect(compressed != file)
        #expect(!FileManager.default.fileExists(atPath: compressed.path), "the compressed body file was not removed: \(compressed.path)")
    }

    @Test("compressing a file streams it and inflates back to the same bytes", arguments: ContentCoding.allCases)
    func fileCompressionRoundTrips(coding: ContentCoding) throws {
        let folder = try TestFolder()
        let source = folder.url.appendingPathComponent("plain.bin")
        let compressed = folder.url.appendingPathComponent("plain.bin.z")
        // Three and a half of the compressor's 64 KiB reads, half of it incompressible.
        let plain = Data(FixtureFile.bytes(seed: 3, offset: 0, count: 114_688) + [UInt8](repeating: 7, count: 114_688))
        try plain.write(to: source)
        try Decompressor.compress(file: source, to: compressed, coding: coding)
        let inflated = try Decompressor.inflate(Data(contentsOf: compressed), coding: coding, limit: 1 << 20)
        #expect(inflated == plain)
        try Data().write(to: source)
        try Decompressor.compress(file: source, to: compressed, coding: coding)
        #expect(try Decompressor.inflate(Data(contentsOf: compressed), coding: coding, limit: 16).isEmpty)
    }

    @Test("a custom URLRequest is sent as is, with the parser chain", arguments: TransportKind.allCases)
    func customRequest(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        fixture.service.configure { $0.commonHeaderFields = { [HTTPField.Name("X-Common")!: "yes"] } }
        guard let url = URL(string: fixture.server.url("/echo?raw=1")) else { Issue.record("bad URL"); return }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBody = Data("custom".utf8)
        urlRequest.setValue("1", forHTTPHeaderField: "X-Custom")
        let echo = try await fixture.service.send(Request(urlRequest: urlRequest, parser: JSONParser()))
        #expect(echo["method"] == "POST")
        #expect(echo["body"] == "custom")
        #expect(echo["query"] == "raw=1")
        #expect(echo["headers"]?["X-Custom"] == "1")
        #expect(echo["headers"]?["X-Common"] == nil)
    }
}

/// Records the body file each attempt's interceptors see (`OutgoingRequest.bodyFile`):
/// the request's own temporary file, whatever other tests write to the temporary directory meanwhile.
final class BodyFileRecorder: RequestInterceptor {
    private let recorded = Protected<[URL]>([])

    var files: [URL] { recorded.snapshot }

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        if let file = request.bodyFile { recorded.withLock { $0.append(file) } }
        return request
    }
}
