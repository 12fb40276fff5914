import Foundation

extension String {
    /// The string these bytes spell in UTF-8, or nil when they are not valid UTF-8
    /// (no replacement characters slipped in).
    static func validatingUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // ASCII (most JSON keys and values) is valid as it is, and `String(decoding:as:)` takes
        // it without the runtime generic-metadata lookups `String(validating:as:)` costs on every
        // call (measured in profiles of small JSON answers).
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    /// Whether every byte is below 0x80 (a loop the compiler vectorizes).
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var seen: UInt8 = 0
        for byte in bytes { seen |= byte }
        return seen < 0x80
    }

    /// The string `data` spells in UTF-8, or nil when it is not valid UTF-8.
    static func validatingUTF8(_ data: Data) -> String? {
        data.withUnsafeBytes { validatingUTF8($0.bindMemory(to: UInt8.self)) }
    }
}
