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

    /// Throws a `ParseError` of kind `contentType`, naming `parser`, unless `response`'s media type
    /// is one of `acceptable`.
    static func require(_ acceptable: Set<String>, of response: Response, parser: String) throws(ParseError) {
        let type = response.mimeType ?? ""
        guard !accepts(acceptable, type: type) else { return }
        throw ParseError(parser: parser, reason: "Content-Type \"\(type.isEmpty ? "none" : type)\" is not one of \(acceptable.sorted())",
                         kind: .contentType)
    }
}
