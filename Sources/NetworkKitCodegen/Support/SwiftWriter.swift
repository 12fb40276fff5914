#if CodeGeneration
/// Builds indented Swift source line by line.
struct SwiftWriter {
    private(set) var lines: [String] = []
    private var depth = 0

    /// Adds a line at the current indentation (an empty line stays empty).
    mutating func line(_ text: String = "") {
        lines.append(text.isEmpty ? "" : String(repeating: "    ", count: depth) + text)
    }

    /// Adds `/// ` comment lines for `text` (several paragraphs kept apart by `///` lines).
    mutating func doc(_ text: String?) {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var trimmed = String(line)
            while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
            self.line(trimmed.isEmpty ? "///" : "/// " + trimmed)
        }
    }

    /// `header {`, the body one level deeper, `}`.
    mutating func block(_ header: String, _ body: (inout SwiftWriter) -> Void) {
        line(header + " {")
        depth += 1
        body(&self)
        depth -= 1
        line("}")
    }

    /// `switch subject {`, then each case as `case …:` at the switch's indentation with its
    /// statements one level deeper, `}`.
    mutating func switchBlock(_ subject: String, cases: [(label: String, body: [String])]) {
        line("switch \(subject) {")
        for item in cases {
            if item.body.count == 1, item.body[0].count + item.label.count < 100 {
                line("\(item.label): \(item.body[0])")
            } else {
                line(item.label + ":")
                for statement in item.body { line("    " + statement) }
            }
        }
        line("}")
    }

    /// The text, ending with a newline.
    var text: String {
        lines.joined(separator: "\n") + "\n"
    }
}

import Foundation

extension String {
    /// The string without leading and trailing white space and newlines.
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
#endif
