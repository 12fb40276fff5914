import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// A `curl` command that sends this request as it stands: method, URL, headers and body,
    /// each shell-quoted. Secrets are hidden as `redaction` says (`.none` for a runnable copy
    /// with credentials). A body that is not text is left out with a note.
    package func curlCommand(redaction: Redaction = .standard) -> String {
        var parts = ["curl"]
        let method = httpMethod ?? "GET"
        if method != "GET" { parts += ["-X", method] }
        parts.append(Self.shellQuoted(redaction.url(url)))
        for line in redaction.headerLines(allHTTPHeaderFields ?? [:]) {
            parts += ["-H", Self.shellQuoted(line)]
        }
        if let body = httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8), !text.contains("\0") {
                let isForm = value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true
                parts += ["--data-binary", Self.shellQuoted(isForm ? redaction.form(text) : text)]
            } else {
                parts += ["--data-binary", "@-", "# \(body.count) bytes of binary body, not shown"]
            }
        }
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, for POSIX shells.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
