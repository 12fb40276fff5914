import Foundation
import NetworkKit

/// Decodes an image as its body arrives: zero or more previews, then the final image, as items
/// of a stream (``ImageStreamItem``).
///
/// ```swift
/// let request = StreamRequest(path: "/photo.jpg", parser: IncrementalImageParser(maxPixelSize: 1024))
/// for try await item in service.stream(request) {
///     print(item.stage, item.image.width, item.image.height, item.bytesReceived)
/// }
/// ```
///
/// The codec is chosen as ``ImageParser`` chooses it (``ImageCodecRegistry/codec(for:mimeType:)``),
/// from the `Content-Type` and the first 64 bytes. A codec that is an ``IncrementalImageCodec``
/// decodes as the bytes arrive and offers previews; any other keeps the body and decodes it at
/// the end. Either way the final image is the one ``ImageParser`` gives for the whole body, with
/// the same options, and its scale comes from ``ImageDecodingOptions/scale`` or the URL. One
/// difference is possible, in a JPEG with damaged data only: libjpeg-turbo reports some bad
/// Huffman codes only when few bytes are buffered, which happens far more often to bytes that
/// are still arriving, and it may warn again or count skipped bytes differently after waiting
/// for more; on such data its two paths may also fill in different pixels. So for a JPEG whose
/// decode warns, ``DecodedImage/warnings``, ``DecodedImage/isIncomplete``, strict decoding's
/// verdict and the pixels of the damaged part may differ from the whole-body decode's.
///
/// ``previews`` says which previews come and how often. A preview that fails to decode is left
/// out and no other follows; the final decode decides whether the file is valid.
///
/// Every error it throws is a `ParseError` (parser `"image"`) with the reason and kind of the
/// decoder's error (kind `limit` for an image over the pixel limit, which is refused from its
/// header, before any pixel memory exists). The stream then fails with it as
/// `NetworkError.parse`; the last preview the loop or the item handlers received
/// is the best image there is, which an app can keep showing.
public struct IncrementalImageParser: StreamParser {
    /// The items: previews, then the final image.
    public typealias Item = ImageStreamItem

    /// The bytes the codec is chosen from.
    static let sniffedBytes = 64

    /// Thumbnail size, pixel limit, scale and strictness, as ``ImageParser/options``.
    public var options: ImageDecodingOptions
    /// Which previews come, how often, how large.
    public var previews: ImagePreviewPolicy
    /// Where codecs are looked up.
    public var registry: ImageCodecRegistry

    private var mimeType: String?
    private var scale: Double = 1
    private var head = Data()
    private var decoder: (any IncrementalImageDecoder)?
    private var bytesReceived = 0
    private var previewCount = 0
    private var lastPreviewTime: Duration?

    /// Creates a parser; the first parameters are ``ImageParser``'s, `previews` the policy.
    public init(
        maxPixelSize: Int? = nil,
        pixelLimit: Int = ImageDecodingOptions.defaultPixelLimit,
        scale: Double? = nil,
        isStrict: Bool = false,
        previews: ImagePreviewPolicy = ImagePreviewPolicy(),
        registry: ImageCodecRegistry = .shared
    ) {
        options = ImageDecodingOptions(maxPixelSize: maxPixelSize, pixelLimit: pixelLimit, scale: scale, isStrict: isStrict)
        self.previews = previews
        self.registry = registry
    }

    /// Starts a new image: what an earlier body left is dropped.
    public mutating func begin(_ response: Response) throws {
        mimeType = response.mimeType
        scale = options.scale ?? ImageScale.fromURL(response.url) ?? 1
        head = Data()
        decoder = nil
        bytesReceived = 0
        previewCount = 0
        lastPreviewTime = nil
    }

    /// A preview when `chunk` completes a stage and the policy wants one now.
    public mutating func parse(_ chunk: Data) throws -> [ImageStreamItem] {
        bytesReceived += chunk.count
        do {
            if let decoder { return try offer(decoder.append(chunk), from: decoder) }
            head.append(chunk)
            guard head.count >= Self.sniffedBytes else { return [] }
            let decoder = try makeDecoder()
            return try offer(decoder.append(take(&head)), from: decoder)
        } catch {
            throw wrapped(error)
        }
    }

    /// The final image.
    public mutating func finish() throws -> [ImageStreamItem] {
        do {
            let decoder = try self.decoder ?? makeDecoder()
            if !head.isEmpty { _ = try decoder.append(take(&head)) }
            var image = try decoder.finish()
            image.scale = scale
            self.decoder = nil
            return [ImageStreamItem(image: image, stage: .final, bytesReceived: Int64(bytesReceived))]
        } catch {
            throw wrapped(error)
        }
    }

    /// The decoder of the codec for the bytes in `head`.
    private mutating func makeDecoder() throws -> any IncrementalImageDecoder {
        guard !head.isEmpty else { throw ParseError.image("empty body") }
        let codec = try registry.codec(for: head, mimeType: mimeType)
        var resolved = options
        resolved.scale = scale
        var policy = previews
        policy.maxPixelSize = [previews.maxPixelSize, options.maxPixelSize].compactMap { $0 }.min()
        if previews.cadence == .never { policy.sources = [] }
        let decoder = try (codec as? any IncrementalImageCodec)?.makeIncrementalDecoder(options: resolved, previews: policy)
            ?? WholeBodyImageDecoder(codec: codec, options: resolved)
        self.decoder = decoder
        return decoder
    }

    /// The preview of `stage`, if one is due.
    private mutating func offer(_ stage: ImageStreamStage?, from decoder: any IncrementalImageDecoder) -> [ImageStreamItem] {
        guard let stage, previews.isDue(previewsSoFar: previewCount, lastTime: lastPreviewTime) else { return [] }
        guard var image = try? decoder.preview() else {
            decoder.stopPreviews()
            return []
        }
        image.scale = scale
        let item = ImageStreamItem(image: image, stage: stage, bytesReceived: Int64(bytesReceived))
        previewCount += 1
        lastPreviewTime = previews.elapsed()
        if previews.cadence == .firstOnly { decoder.stopPreviews() }
        return [item]
    }

    /// `error` as the `ParseError` this parser throws.
    private func wrapped(_ error: any Error) -> ParseError {
        error as? ParseError ?? ParseError(parser: "image", reason: "\(error)", kind: .custom, underlying: error)
    }

    /// `data`, leaving it empty.
    private func take(_ data: inout Data) -> Data {
        defer { data = Data() }
        return data
    }
}
