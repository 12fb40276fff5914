/// Which media types a list of acceptable ones lets through: `application/json` exactly,
/// `text/*` for a whole type, `*/*` for any, and `+json` for every type with that suffix
/// (`application/problem+json`). Matching ignores case; parameters (`; charset=…`) are not part
/// of a media type.
enum MediaTypeList {
    /// True when `type` (as `Response.mimeType` gives it) is one of `acceptable`.
    static func accepts(_ acceptable: Set<String>, type: String) -> Bool {
        let type = type.lowercased()
        return acceptable.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern == type || pattern == "*/*" { return true }
            if pattern.hasPrefix("+") { return type.hasSuffix(pattern) }
            if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast()) }
            return false
        }
    }
}
