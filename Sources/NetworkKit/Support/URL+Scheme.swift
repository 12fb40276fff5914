import Foundation

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
