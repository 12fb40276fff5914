import Foundation
import Hummingbird
import NIOCore

extension FixtureRoutes {
    /// `POST /upload/multipart`: reads a `multipart/form-data` body as it streams in (nothing of
    /// it is kept) with `MultipartReader`, whose structure multipart-kit parses, and answers, per
    /// part in order, its `Content-Disposition` parameters (`name`, `filename`, …), its
    /// `Content-Type`, its size and CRC-32: `{"parts": [{"name", "filename", "contentType",
    /// "size", "crc32"}], "bodyLength": N}`. A body multipart-kit refuses, or one that ends
    /// before its close delimiter, gets `400` with `{"error": "..."}`.
    static func addMultipart(to router: Router<BasicRequestContext>) {
        router.post("upload/multipart") { request, _ in
            guard let type = request.headers[.contentType], let boundary = boundary(in: type),
                  let upload = Upload(boundary: boundary) else {
                return json(#"{"error": "not multipart/form-data"}"#, status: .badRequest)
            }
            var length = 0
            var refusal: MultipartReadError?
            for try await buffer in request.body {
                length += buffer.readableBytes
                guard refusal == nil else { continue }  // the rest is only counted
                refusal = await parsing.value { upload.read(buffer) }
            }
            let outcome = await parsing.value { upload.finish() }
            switch (refusal, outcome) {
            case (let error?, _), (nil, .failure(let error)):
                let object = ["error": error.description]
                return respond(.badRequest, contentType: "application/json", body: try JSONSerialization.data(withJSONObject: object))
            case (nil, .success(let parts)):
                let object: [String: Any] = ["parts": parts.map(\.json), "bodyLength": length]
                return respond(contentType: "application/json", body: try JSONSerialization.data(withJSONObject: object))
            }
        }
    }

    /// Where uploaded bodies are read: multipart-kit reads a part's header block a byte at a
    /// time, so that work stays off the cooperative pool.
    private static let parsing = SerialWork(label: "fixture.multipart")

    private static func boundary(in contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
              let range = contentType.range(of: "boundary=") else { return nil }
        var value = contentType[range.upperBound...].split(separator: ";").first.map(String.init) ?? ""
        if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
        return value.isEmpty ? nil : value
    }
}

/// One upload's reader.
/// `@unchecked Sendable`: only ever used on the route's serial `parsing` queue, one awaited call
/// at a time, so nothing in it is accessed concurrently.
private final class Upload: @unchecked Sendable {
    private let reader: MultipartReader

    init?(boundary: String) {
        guard let reader = MultipartReader(boundary: boundary) else { return nil }
        self.reader = reader
    }

    /// Reads `buffer`; the reason when the body is refused.
    func read(_ buffer: ByteBuffer) -> MultipartReadError? {
        do {
            try reader.read(buffer)
            return nil
        } catch {
            return error
        }
    }

    /// The parts, or why the body is refused.
    func finish() -> Result<[UploadedPart], MultipartReadError> {
        Result { () throws(MultipartReadError) in try reader.finish() }
    }
}
