import Foundation

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, saturating at `Int64.max`.
    var inNanoseconds: Int64 {
        let (seconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return components.seconds < 0 ? .min : .max }
        let (total, overflowed) = seconds.addingReportingOverflow(components.attoseconds / 1_000_000_000)
        return overflowed ? .max : total
    }
}

extension URL {
    /// True when `scheme` is `http` or `https` in any case, compared without lowercasing (every
    /// request's target passes here).
    package static func isHTTPScheme(_ scheme: String) -> Bool {
        var bytes = scheme.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        switch bytes.next() {
        case nil: return true
        case let byte? where byte | 0x20 == UInt8(ascii: "s"): return bytes.next() == nil
        default: return false
        }
    }

    /// This URL with its scheme replaced as `schemes` maps it (keys lowercased), the rest as it
    /// was; the URL itself when `schemes` does not name its scheme.
    package func replacingScheme(_ schemes: [String: String]) -> URL {
        guard var parts = URLComponents(url: self, resolvingAgainstBaseURL: false),
              let scheme = parts.scheme?.lowercased(), let replacement = schemes[scheme] else { return self }
        parts.scheme = replacement
        return parts.url ?? self
    }
}

extension Substring {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace, RFC 9110
    /// section 5.6.3), cut at Unicode scalars, so a mark after a space stays.
    package var trimmingSpacesAndTabs: Substring {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return Substring(scalars[first...last])
    }
}

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

/// A file name's extension, found by scanning its Unicode scalars.
///
/// Not `NSString.pathExtension`: on Linux it traps on some names (fuzz-multipart found
/// `"///////~//////////////"`), and file names reach it from servers (`Content-Disposition`).
enum FileNameExtension {
    /// `name` split at the dot before its extension: `("photo.large", "jpg")` for
    /// `"photo.large.jpg"`. The extension is what follows the last dot of the last path
    /// component, unless that dot starts the component (`".profile"`) or ends it (`"notes."`):
    /// then it is empty and `base` is the whole name.
    static func split(_ name: String) -> (base: String, extension: String) {
        let scalars = name.unicodeScalars
        let component = scalars.lastIndex(of: "/").map { scalars.index(after: $0) } ?? scalars.startIndex
        guard let dot = scalars[component...].lastIndex(of: "."), dot != component else { return (name, "") }
        let start = scalars.index(after: dot)
        guard start != scalars.endIndex else { return (name, "") }
        return (String(String.UnicodeScalarView(scalars[..<dot])), String(String.UnicodeScalarView(scalars[start...])))
    }
}
