import Foundation

/// The name a download gets in its directory: the server's (`Content-Disposition`), else the
/// URL's last path component, made safe so it can never leave the directory, and free.
enum DownloadFileName {
    /// The name the server suggests, sanitized; "download" when nothing usable is left.
    static func suggested(contentDisposition: String?, url: URL?) -> String {
        let candidates = [contentDisposition.flatMap(fromContentDisposition), url?.lastPathComponent]
        for candidate in candidates.compactMap({ $0 }) {
            if let name = sanitized(candidate) { return name }
        }
        return "download"
    }

    /// `name` in `directory`, or `name (1)`, `name (2)`… before the extension: the first that
    /// does not exist yet.
    static func free(_ name: String, in directory: URL) -> URL {
        let (base, ext) = FileNameExtension.split(name)
        var candidate = directory.appendingPathComponent(name)
        var number = 1
        while FileManager.default.fileExists(atPath: candidate.path) {
            let numbered = "\(base) (\(number))" + (ext.isEmpty ? "" : ".\(ext)")
            candidate = directory.appendingPathComponent(numbered)
            number += 1
        }
        return candidate
    }

    /// A single path component that stays in its directory: no separators, no NUL or control
    /// characters, not `.` or `..`, not hidden, at most 255 bytes; nil when nothing is left.
    /// Each rule holds for the name's Unicode scalars, as the file system sees it, not for its
    /// `Character`s, which can hide a separator or a dot (U+0601, a prepended mark, and the
    /// backslash after it are one `Character`; so are a dot and a combining accent).
    static func sanitized(_ raw: String) -> String? {
        // Only the last component of anything path-like: "../../etc/passwd" → "passwd".
        guard let last = raw.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last else { return nil }
        var name = String(String.UnicodeScalarView(last.filter {
            !CharacterSet.controlCharacters.contains($0) && $0 != "\0" && $0 != ":"
        }))
        // Cut to length first: a cut can bare a dot (the fuzzer found "x…..name" → "..name").
        name = lastCharacters(of: name, fittingIn: 255)
        let kept = name.unicodeScalars.drop { $0 == "." || $0.properties.isWhitespace }
        name = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }

    /// The longest tail of `name` (whole characters, so the extension stays) of at most `limit`
    /// UTF-8 bytes. Linear: a server can send a name of a megabyte.
    private static func lastCharacters(of name: String, fittingIn limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var start = name.endIndex
        var kept = 0
        while start > name.startIndex {
            let previous = name.index(before: start)
            let size = name[previous].utf8.count
            guard kept + size <= limit else { break }
            kept += size
            start = previous
        }
        return String(name[start...])
    }

    /// The file name in a `Content-Disposition` value: RFC 6266 `filename*` (RFC 5987,
    /// percent-encoded UTF-8) wins over `filename`, which may be quoted.
    static func fromContentDisposition(_ value: String) -> String? {
        var plain: String?
        for parameter in parameters(of: value) {
            switch parameter.name {
            case "filename*":
                // charset'language'percent-encoded
                let parts = parameter.value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3, parts[0].lowercased() == "utf-8",
                   let decoded = String(parts[2]).removingPercentEncoding {
                    return decoded
                }
            case "filename":
                plain = parameter.value
            default:
                continue
            }
        }
        return plain
    }

    /// `name=value` pairs after the disposition type, values unquoted.
    private static func parameters(of value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var rest = Substring(value)
        // Skip the type ("attachment").
        guard let semicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: semicolon)...]
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " || $0 == ";" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop(while: { $0 == " " })
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { parsed.append(character); escaped = false; continue }
                    if character == "\\" { escaped = true; continue }
                    if character == "\"" { break }
                    parsed.append(character)
                }
                rest = rest.drop(while: { $0 != ";" })
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            result.append((name, parsed))
        }
        return result
    }
}
