/// Header fields as HTTP compares their names: without regard to ASCII case.
enum HeaderFields {
    /// The value of header `name` in `headers`, looked up without regard to case.
    static func value(_ name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        return headers.first { sameName($0.key, name) }?.value
    }

    /// ASCII case-insensitive equality, as header names are compared (no locale, no allocation).
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return zip(lhs.utf8, rhs.utf8).allSatisfy { pair in
            pair.0 == pair.1 || (pair.0 | 0x20 == pair.1 | 0x20 && (pair.0 | 0x20) >= 0x61 && (pair.0 | 0x20) <= 0x7A)
        }
    }
}
