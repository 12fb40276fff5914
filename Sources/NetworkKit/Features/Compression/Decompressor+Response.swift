import Foundation

extension Decompressor {
    /// Inflates a response body that still carries the `Content-Encoding` it says.
    ///
    /// URLSession (libcurl) usually decodes gzip/deflate itself but leaves the header in
    /// place, so the header alone proves nothing: the body is inflated only when it still
    /// looks compressed (gzip magic `1f 8b`; for deflate, when inflating succeeds). The
    /// result has the inflated body and no `Content-Encoding` or `Content-Length` header.
    /// Anything else is returned unchanged.
    /// - Throws: `ParseError(parser: "decompress")` when the output would exceed `limit`,
    ///   or a body with gzip magic is truncated or corrupt.
    public static func decodeIfStillEncoded(_ response: Response, limit: Int) throws -> Response {
        guard let coding = response.contentCoding else { return response }
        let body = response.data
        let inflated: Data
        switch coding {
        case .gzip:
            guard body.count >= 2, body[body.startIndex] == 0x1f, body[body.startIndex + 1] == 0x8b else {
                return response
            }
            inflated = try inflate(body, coding: .gzip, limit: limit)
        case .deflate:
            do {
                inflated = try inflateReportingFailure(body, coding: .deflate, limit: limit)
            } catch .limitExceeded {
                throw parseError(.limitExceeded(limit), coding: .deflate)
            } catch {
                return response // Not deflate data: already decoded by the transport.
            }
        }
        var decoded = response
        decoded.data = inflated
        decoded.headers = response.headers.filter { name, _ in
            !Response.sameFieldName(name, "Content-Encoding") && !Response.sameFieldName(name, "Content-Length")
        }
        return decoded
    }

    /// True when `response` says it is compressed and its body still looks it (gzip magic, or a
    /// zlib header for deflate), so inflating it may cost up to the size limit: the pipeline then
    /// parses it on the parsing queue rather than in place.
    static func looksStillEncoded(_ response: Response) -> Bool {
        guard let coding = response.contentCoding, response.data.count >= 2 else { return false }
        let first = response.data[response.data.startIndex], second = response.data[response.data.startIndex + 1]
        switch coding {
        case .gzip: return first == 0x1f && second == 0x8b
        case .deflate: return first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
        }
    }
}

extension Response {
    /// The coding its `Content-Encoding` names, if the kit knows it.
    var contentCoding: ContentCoding? {
        contentEncoding.flatMap(ContentCoding.init(headerValue:))
    }
}
