/// The encoding an image arrived in: `png`, `jpeg`, `webp`, or any name a custom codec uses.
public struct ImageFormat: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The format's short name, such as `"png"`.
    public let rawValue: String

    /// Creates a format from its short name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a format from a string literal, for custom codecs: `let format: ImageFormat = "ppm"`.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// Portable Network Graphics.
    public static let png: ImageFormat = "png"
    /// JPEG (JFIF/EXIF), baseline or progressive.
    public static let jpeg: ImageFormat = "jpeg"
    /// WebP, lossy or lossless, still or animated.
    public static let webp: ImageFormat = "webp"

    /// The short name.
    public var description: String { rawValue }
}
