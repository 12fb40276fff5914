import Foundation
import NetworkKit

/// Decodes an image response into a `DecodedImage`.
///
/// The codec is chosen by `ImageCodecRegistry.codec(for:mimeType:)` (Content-Type, then
/// magic bytes). Runs on the service's parsing queue like any `ResponseParser`.
/// ```swift
/// let image = try await service.send(Request(url: url, parser: ImageParser(maxPixelSize: 256)))
/// ```
public struct ImageParser: ResponseParser {
    /// Thumbnail size, pixel limit and scale handed to the codec. When `options.scale` is
    /// `nil`, the scale comes from the URL (`@2x`/`@3x` in the last path component) or is 1.
    public var options: ImageDecodingOptions
    /// Where codecs are looked up.
    public var registry: ImageCodecRegistry

    /// Creates a parser; see `ImageDecodingOptions` for the parameters.
    public init(
        maxPixelSize: Int? = nil,
        pixelLimit: Int = ImageDecodingOptions.defaultPixelLimit,
        scale: Double? = nil,
        isStrict: Bool = false,
        registry: ImageCodecRegistry = .shared
    ) {
        self.options = ImageDecodingOptions(maxPixelSize: maxPixelSize, pixelLimit: pixelLimit, scale: scale, isStrict: isStrict)
        self.registry = registry
    }

    /// Picks a codec and decodes the body.
    /// - Throws: `ParseError(parser: "image")` for an empty body, an unknown format, a
    ///   corrupt or truncated file, an image over the pixel limit, or, when strict, a file
    ///   whose pixel data ends early or is damaged (underlying error ``IncompleteImageError``).
    public func parse(_ response: Response) throws -> DecodedImage {
        guard !response.data.isEmpty else { throw ParseError.image("empty body") }
        let codec = try registry.codec(for: response.data, mimeType: response.mimeType)
        var resolved = options
        let scale = options.scale ?? ImageScale.fromURL(response.url) ?? 1
        resolved.scale = scale
        var image = try codec.decode(response.data, options: resolved)
        image.scale = scale
        return image
    }
}
