import Foundation
import NetworkKit

/// The incremental decoder of a codec that is not an ``IncrementalImageCodec``: it keeps the
/// body and decodes it at the end, as ``ImageParser`` does. It makes no previews.
final class WholeBodyImageDecoder: IncrementalImageDecoder {
    private let codec: any ImageCodec
    private let options: ImageDecodingOptions
    private let body = Protected(Data())

    init(codec: any ImageCodec, options: ImageDecodingOptions) {
        self.codec = codec
        self.options = options
    }

    func append(_ bytes: Data) throws -> ImageStreamStage? {
        body.withLock { $0.append(bytes) }
        return nil
    }

    func preview() throws -> DecodedImage {
        throw ParseError.image("\(codec.format) images have no previews")
    }

    func finish() throws -> DecodedImage {
        let data = body.withLock { body in
            defer { body = Data() }
            return body
        }
        return try codec.decode(data, options: options)
    }
}
