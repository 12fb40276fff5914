import CZlib
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

extension FixtureRoutes {
    /// `POST /upload/multipart`: parses a `multipart/form-data` body with vapor/multipart-kit as
    /// it streams in (nothing of it is kept) and answers, per part in order, its headers' name,
    /// file name and type, its size and CRC-32: `{"parts": [{"name", "filename", "contentType",
    /// "size", "crc32"}], "bodyLength": N}`.
    static func addMultipart(to router: Router<BasicRequestContext>) {
        router.post("upload/multipart") { request, _ in
            guard let type = request.headers[.contentType], let boundary = boundary(in: type) else {
                return json(#"{"error": "not multipart/form-data"}"#, status: .badRequest)
            }
            let upload = ParsedUpload(boundary: boundary)
            var length = 0
            for try await buffer in request.body {
                length += buffer.readableBytes
                // multipart-kit reads byte by byte (about 1 µs a byte in a debug build): off the
                // cooperative pool, so a big upload does not starve every other test's tasks.
                try await parsing.run { try upload.parser.execute(buffer) }
            }
            let parts = await parsing.value { upload.digest.parts }
            let object: [String: Any] = ["parts": parts, "bodyLength": length]
            return respond(contentType: "application/json", body: try JSONSerialization.data(withJSONObject: object))
        }
    }

    /// Where uploaded bodies are parsed.
    private static let parsing = SerialWork(label: "fixture.multipart")

    private static func boundary(in contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
              let range = contentType.range(of: "boundary=") else { return nil }
        var value = contentType[range.upperBound...].split(separator: ";").first.map(String.init) ?? ""
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return value.isEmpty ? nil : value
    }
}

/// What the multipart route learns about each part as it streams by.
private final class PartDigest {
    private(set) var parts: [[String: Any]] = []
    private var current: [String: Any] = [:]
    private var size = 0
    private var crc: uLong = crc32(0, nil, 0)

    func header(_ name: String, _ value: String) {
        switch name.lowercased() {
        case "content-disposition":
            for parameter in value.split(separator: ";").dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2 else { continue }
                let unquoted = pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"") ? String(pair[1].dropFirst().dropLast()) : pair[1]
                current[pair[0] == "filename" ? "filename" : pair[0]] = unquoted
            }
        case "content-type":
            current["contentType"] = value
        default:
            break
        }
    }

    func body(_ bytes: ByteBufferView) {
        size += bytes.count
        bytes.withContiguousStorageIfAvailable { buffer in
            crc = crc32(crc, buffer.baseAddress, uInt(buffer.count))
        } ?? {
            let copy = Array(bytes)
            crc = crc32(crc, copy, uInt(copy.count))
        }()
    }

    func endPart() {
        current["size"] = size
        current["crc32"] = Int(crc)
        parts.append(current)
        current = [:]
        size = 0
        crc = crc32(0, nil, 0)
    }
}

/// A multipart parser and what it learned.
/// `@unchecked Sendable`: only ever touched on the route's serial `parsing` queue, one awaited
/// call at a time, so nothing in it is accessed concurrently.
private final class ParsedUpload: @unchecked Sendable {
    let digest = PartDigest()
    let parser: MultipartParser

    init(boundary: String) {
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [digest] name, value in digest.header(name, value) }
        parser.onBody = { [digest] buffer in digest.body(buffer.readableBytesView) }
        parser.onPartComplete = { [digest] in digest.endPart() }
    }
}

/// A serial dispatch queue that async code hands blocking work to.
final class SerialWork: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue and waits for it.
    func run(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Reads a value on the queue.
    func value<T>(_ read: @escaping @Sendable () -> T) async -> sending T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.async { continuation.resume(returning: read()) }
        }
    }
}
