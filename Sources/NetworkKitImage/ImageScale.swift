import Foundation

/// The scale suffix of image URLs (`icon@2x.png`, `photo@3x.jpg?v=1`).
enum ImageScale {
    /// 2 or 3 when the last path component's name ends in `@2x`/`@3x`, otherwise `nil`.
    static func fromURL(_ url: URL?) -> Double? {
        guard let name = url?.deletingPathExtension().lastPathComponent.lowercased() else { return nil }
        if name.hasSuffix("@2x") { return 2 }
        if name.hasSuffix("@3x") { return 3 }
        return nil
    }
}
