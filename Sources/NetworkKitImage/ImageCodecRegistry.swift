import Foundation
import NetworkKit

/// Chooses the codec for a body by MIME type and magic bytes.
///
/// Registered by default: `image/png` (PNG), `image/jpeg`, `image/jpg`, `image/pjpeg` (JPEG),
/// `image/webp` (WebP). Add formats with `register(_:forMIMETypes:)`.
public final class ImageCodecRegistry: Sendable {
    /// The registry `ImageParser` uses unless given another.
    public static let shared = ImageCodecRegistry()

    /// MIME types that say nothing about the format: the bytes decide.
    static let genericMIMETypes: Set<String> = ["", "application/octet-stream", "binary/octet-stream"]

    private struct Codecs {
        var byMIMEType: [String: any ImageCodec] = [:]
        var inOrder: [any ImageCodec] = []
    }

    private let codecs = Protected(Codecs())

    /// A registry with the built-in PNG, JPEG and WebP codecs, or an empty one.
    public init(includingDefaults: Bool = true) {
        guard includingDefaults else { return }
        register(PNGCodec(), forMIMETypes: ["image/png"])
        register(JPEGCodec(), forMIMETypes: ["image/jpeg", "image/jpg", "image/pjpeg"])
        register(WebPCodec(), forMIMETypes: ["image/webp"])
    }

    /// Makes `codec` the one for `mimeTypes` (case-insensitive) and a candidate for sniffing.
    /// A later registration for the same MIME type replaces the earlier one.
    public func register(_ codec: any ImageCodec, forMIMETypes mimeTypes: [String]) {
        codecs.withLock { codecs in
            for mimeType in mimeTypes { codecs.byMIMEType[mimeType.lowercased()] = codec }
            codecs.inOrder.removeAll { $0.format == codec.format }
            codecs.inOrder.append(codec)
        }
    }

    /// The codec registered for `mimeType` (parameters such as `; charset` ignored).
    public func codec(forMIMEType mimeType: String) -> (any ImageCodec)? {
        let key = Self.normalized(mimeType)
        return codecs.withLock { $0.byMIMEType[key] }
    }

    /// The first registered codec whose signature matches `data`.
    public func codec(sniffing data: Data) -> (any ImageCodec)? {
        let candidates = codecs.withLock { $0.inOrder }
        return candidates.first { $0.canDecode(data) }
    }

    /// The codec to decode `data` with, served as `mimeType`:
    /// a generic or missing type is sniffed; a named type is trusted when its codec
    /// recognises the bytes; otherwise a codec whose magic bytes match wins (the server
    /// sent the wrong `Content-Type`); failing that, the named type's codec reports the error.
    /// - Throws: `ParseError(parser: "image")` when no codec fits.
    public func codec(for data: Data, mimeType: String?) throws -> any ImageCodec {
        let type = mimeType.map(Self.normalized) ?? ""
        let named = Self.genericMIMETypes.contains(type) ? nil : codec(forMIMEType: type)
        if let named, named.canDecode(data) { return named }
        if let sniffed = codec(sniffing: data) { return sniffed }
        if let named { return named }
        let head = data.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
        let described = type.isEmpty ? "an untyped body" : type
        throw ParseError.image(
            "no codec for \(described) (\(data.count) bytes starting \(head.isEmpty ? "<empty>" : head); no registered signature matches)"
        )
    }

    private static func normalized(_ mimeType: String) -> String {
        let type = mimeType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
