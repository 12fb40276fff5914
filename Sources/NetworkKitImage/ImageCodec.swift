import Foundation

/// Decodes one image format. Codecs are values shared across threads, so they hold no
/// mutable state; register custom ones with `ImageCodecRegistry`.
public protocol ImageCodec: Sendable {
    /// The format this codec decodes.
    var format: ImageFormat { get }
    /// True when `data` starts with this format's signature (magic bytes). Must be cheap
    /// and must not throw: the registry calls it to pick a codec.
    func canDecode(_ data: Data) -> Bool
    /// Decodes `data`, honouring `options` (pixel limit before allocating, thumbnail size, scale).
    /// - Throws: a `ParseError` (parser `"image"`) for input it cannot decode; never traps.
    func decode(_ data: Data, options: ImageDecodingOptions) throws -> DecodedImage
}

extension Data {
    /// True when the bytes start with `signature` at `offset`.
    func hasSignature(_ signature: [UInt8], at offset: Int = 0) -> Bool {
        guard count >= offset + signature.count else { return false }
        return signature.indices.allSatisfy { self[startIndex + offset + $0] == signature[$0] }
    }
}
