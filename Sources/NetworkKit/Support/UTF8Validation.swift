import Foundation

extension String {
    /// The string these bytes spell in UTF-8, or nil when they are not valid UTF-8
    /// (no replacement characters slipped in).
    static func validatingUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// The string `data` spells in UTF-8, or nil when it is not valid UTF-8.
    static func validatingUTF8(_ data: Data) -> String? {
        data.withUnsafeBytes { validatingUTF8($0.bindMemory(to: UInt8.self)) }
    }
}
