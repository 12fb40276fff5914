import Foundation

/// A codec that decodes a file as its bytes arrive, and can show what has arrived so far.
///
/// ``IncrementalImageParser`` uses it for the formats it serves; a codec that does not adopt it
/// still works there: the parser keeps the body and calls ``ImageCodec/decode(_:options:)`` at
/// the end. The built-in JPEG, PNG and WebP codecs adopt it.
public protocol IncrementalImageCodec: ImageCodec {
    /// A decoder for one file, decoding with `options` (as ``ImageCodec/decode(_:options:)``
    /// would), reporting the stages of `previews.sources` and no others, and making previews
    /// within `previews.maxPixelSize`.
    /// - Throws: a `ParseError` (parser `"image"`) when no decoder can be made.
    func makeIncrementalDecoder(options: ImageDecodingOptions, previews: ImagePreviewPolicy) throws
        -> any IncrementalImageDecoder
}

/// Decodes one file as its bytes arrive. The parser calls it from one thread at a time, in this
/// order: ``append(_:)`` for each chunk (``preview()`` between them when it wants one), then ``finish()`` once the body ended as it should.
///
/// It must hold within limits what it has not consumed, check the pixel limit before it
/// allocates pixels, and throw a `ParseError` (parser `"image"`), never trap, on bad input.
public protocol IncrementalImageDecoder: AnyObject, Sendable {
    /// Takes the next bytes of the file. Returns the newest stage a preview can show when these
    /// bytes completed one that was not returned before, else nil.
    func append(_ bytes: Data) throws -> ImageStreamStage?

    /// A preview of the stage ``append(_:)`` last returned, fitted within the policy's
    /// ``ImagePreviewPolicy/maxPixelSize``.
    func preview() throws -> DecodedImage

    /// No preview will be asked for again: the decoder may free what previews need.
    func stopPreviews()

    /// The body ended: the final image, the one ``ImageCodec/decode(_:options:)`` gives for the
    /// whole body.
    func finish() throws -> DecodedImage
}

extension IncrementalImageDecoder {
    /// Decoders that keep nothing for previews have nothing to free.
    public func stopPreviews() {}
}
