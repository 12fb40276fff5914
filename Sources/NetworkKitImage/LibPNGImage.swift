import CPNG

/// libpng constants whose macros Swift does not import.
enum PNG {
    /// `PNG_FORMAT_RGBA`: 8-bit RGB with alpha.
    static let formatRGBA = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
}

/// A `png_image` on the heap: libpng keeps a pointer to it between calls, so it must not move.
final class PNGImage {
    let pointer: UnsafeMutablePointer<png_image>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: png_image())
        pointer.pointee.version = UInt32(PNG_IMAGE_VERSION)
    }

    deinit {
        png_image_free(pointer) // Safe after libpng freed it itself.
        pointer.deallocate()
    }

    /// libpng's last message.
    var message: String {
        withUnsafeBytes(of: pointer.pointee.message) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "libpng error" : text
        }
    }
}
