import Foundation

extension URL {
    /// This URL with its scheme replaced as `schemes` maps it (keys lowercased), the rest as it
    /// was; the URL itself when `schemes` does not name its scheme.
    package func replacingScheme(_ schemes: [String: String]) -> URL {
        guard var parts = URLComponents(url: self, resolvingAgainstBaseURL: false),
              let scheme = parts.scheme?.lowercased(), let replacement = schemes[scheme] else { return self }
        parts.scheme = replacement
        return parts.url ?? self
    }
}
