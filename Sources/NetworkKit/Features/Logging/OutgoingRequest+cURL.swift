import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension OutgoingRequest {
    /// A `curl` command that sends this request as it stands: method, URL, header fields and
    /// body, each shell-quoted. Secrets are hidden as `redaction` says (`.none` for a runnable copy
    /// with credentials). A body in memory that is not text, or a streamed one, is left out with a
    /// note; a body sent from a file is read from it (`@path`).
    package func curlCommand(redaction: Redaction = .standard) -> String {
        var parts = ["curl"]
        let method = head.method.rawValue
        if method != "GET" { parts += ["-X", method] }
        parts.append(Self.shellQuoted(redaction.url(url)))
        for line in redaction.headerLines(head.headerFields) {
            parts += ["-H", Self.shellQuoted(line)]
        }
        switch body {
        case .none:
            break
        case .data(let body) where body.isEmpty:
            break
        case .data(let body):
            if let text = String(data: body, encoding: .utf8), !text.contains("\0") {
                let isForm = head.headerFields[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true
                parts += ["--data-binary", Self.shellQuoted(isForm ? redaction.form(text) : text)]
            } else {
                parts += ["--data-binary", "@-", "# \(body.count) bytes of binary body, not shown"]
            }
        case .file(let file):
            parts += ["--data-binary", Self.shellQuoted("@" + file.path)]
        case .stream(let stream):
            let size = stream.length.map { "\($0) bytes" } ?? "a body of unknown length"
            parts += ["--data-binary", "@-", "# \(size) made as it is sent, not shown"]
        }
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, for POSIX shells.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
