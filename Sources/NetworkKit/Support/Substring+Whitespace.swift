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
