import Foundation

/// A `multipart/form-data` body: text fields and files, from memory or from disk
/// (YTKNetwork's `constructingBodyBlock`, AFNetworking's `AFMultipartFormData`).
///
/// ```swift
/// var form = MultipartForm()
/// form.append("Ada", name: "author")
/// try form.append(file: photoURL, name: "photo")           // type guessed from the extension
/// request.body = .multipart(form)
/// ```
///
/// A form up to `memoryThreshold` is sent from memory; a larger one is assembled into a
/// temporary file by streaming copies and uploaded from there, so memory stays flat whatever the
/// files' sizes. The temporary file is removed when the request finishes.
public struct MultipartForm: Sendable, Equatable {
    /// What a part holds.
    public enum Content: Sendable, Equatable {
        /// These bytes.
        case data(Data)
        /// The contents of this file, read when the body is assembled.
        case file(URL)
    }

    /// One field or file.
    public struct Part: Sendable, Equatable {
        /// The form field name.
        public var name: String
        /// The file name the server sees, for file parts.
        public var fileName: String?
        /// The part's `Content-Type`, for file parts.
        public var contentType: String?
        /// The part's bytes.
        public var content: Content
    }

    /// Forms larger than this (10 MB) are assembled on disk rather than in memory.
    public static let memoryThreshold: Int64 = 10_000_000

    /// The boundary between parts: random, so it does not occur in the content.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part] = []

    /// An empty form with a random boundary.
    public init() {
        boundary = "NetworkKit-" + UUID().uuidString
    }

    /// The `Content-Type` header value, boundary included.
    public var contentType: String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// Adds a text field.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, fileName: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Adds a file part from memory.
    public mutating func append(_ data: Data, name: String, fileName: String, contentType: String? = nil) {
        parts.append(Part(name: name, fileName: fileName, contentType: contentType ?? MIMEType.guess(forFileName: fileName),
                          content: .data(data)))
    }

    /// Adds a file part read from disk when the body is assembled; the file name defaults to the
    /// file's own and the type is guessed from its extension. Throws when the file is not readable.
    public mutating func append(file url: URL, name: String, fileName: String? = nil, contentType: String? = nil) throws {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw NetworkError.invalidRequest("cannot read the multipart file \(url.path)")
        }
        let fileName = fileName ?? url.lastPathComponent
        parts.append(Part(name: name, fileName: fileName, contentType: contentType ?? MIMEType.guess(forFileName: fileName),
                          content: .file(url)))
    }

    // MARK: - Encoding

    /// The body's length in bytes.
    func encodedLength() throws -> Int64 {
        var length: Int64 = 0
        for part in parts {
            length += Int64(header(for: part).count) + (try Self.length(of: part.content)) + 2
        }
        return length + Int64(closing.count)
    }

    /// The whole body in memory.
    func encoded() throws -> Data {
        var body = Data()
        try write { body.append($0) }
        return body
    }

    /// The body written to `file` by streaming copies (a megabyte at a time).
    func write(to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw NetworkError.invalidRequest("cannot create the multipart body file \(file.path)")
        }
        let output = try FileHandle(forWritingTo: file)
        defer { try? output.close() }
        try write { try output.write(contentsOf: $0) }
    }

    private func write(_ emit: (Data) throws -> Void) throws {
        for part in parts {
            try emit(header(for: part))
            switch part.content {
            case .data(let data):
                try emit(data)
            case .file(let url):
                let input = try FileHandle(forReadingFrom: url)
                defer { try? input.close() }
                while let block = try input.read(upToCount: 1 << 20), !block.isEmpty { try emit(block) }
            }
            try emit(Data("\r\n".utf8))
        }
        try emit(closing)
    }

    private var closing: Data {
        Data("--\(boundary)--\r\n".utf8)
    }

    private func header(for part: Part) -> Data {
        var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let fileName = part.fileName { header += "; filename=\"\(Self.escaped(fileName))\"" }
        header += "\r\n"
        if let contentType = part.contentType { header += "Content-Type: \(Self.escaped(contentType))\r\n" }
        return Data((header + "\r\n").utf8)
    }

    /// Names and file names as the HTML standard encodes them in multipart headers: `"`, CR and
    /// LF percent-encoded, so no name can end the header or the quoted string early.
    static func escaped(_ name: String) -> String {
        // Scalar by scalar: String's own replacing works on characters, and a CR followed by a
        // combining mark is one character that is not "\r", so it went out raw (fuzz-multipart).
        var escaped = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": escaped.append(contentsOf: "%22".unicodeScalars)
            case "\r": escaped.append(contentsOf: "%0D".unicodeScalars)
            case "\n": escaped.append(contentsOf: "%0A".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func length(of content: Content) throws -> Int64 {
        switch content {
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            return try url.fileSize()
        }
    }
}

/// MIME types for common file extensions, for parts whose type was not given.
enum MIMEType {
    static func guess(forFileName name: String) -> String {
        let types = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
            "heic": "image/heic", "svg": "image/svg+xml", "pdf": "application/pdf", "json": "application/json",
            "txt": "text/plain", "csv": "text/csv", "html": "text/html", "xml": "application/xml",
            "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4", "mov": "video/quicktime",
            "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
        ]
        return types[FileNameExtension.split(name).extension.lowercased()] ?? "application/octet-stream"
    }
}

extension URL {
    /// The size of the file at this URL, from the file system.
    func fileSize() throws -> Int64 {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
        return size?.int64Value ?? 0
    }
}
