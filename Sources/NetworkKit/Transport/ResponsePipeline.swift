import Foundation

/// What happens to a finished response on the parsing queue: status check, content decoding
/// (a body that reached us still gzip/deflate-encoded is inflated, within the size limit), then the parser.
enum ResponsePipeline {
    static func run<Output>(
        _ response: Response, landing: Landing, parser: any ResponseParser<Output>
    ) -> Result<Output, NetworkError> {
        guard landing.acceptableStatusCodes.contains(response.statusCode) else {
            return .failure(.httpStatus(code: response.statusCode, body: response.data))
        }
        do {
            let decoded = try Decompressor.decodeIfStillEncoded(response, limit: landing.maxDecompressedBytes)
            return .success(try parser.parse(decoded))
        } catch {
            return .failure(NetworkError.wrap(error, parser: String(describing: type(of: parser))))
        }
    }
}
