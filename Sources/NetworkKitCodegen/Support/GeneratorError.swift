#if CodeGeneration
import Foundation

/// A problem with a generator's input: where it is (file, line, JSON pointer) and what is wrong.
/// Printed as `file:line: error: message`, the form compilers use, so SwiftPM and editors show it
/// as a build error at that line.
public struct GeneratorError: Error, Equatable, CustomStringConvertible {
    /// The file the problem is in.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The JSON pointer of the offending value (`#/paths/~1pets/get`), when there is one.
    public var pointer: String?
    /// What is wrong.
    public var message: String

    /// A problem at `pointer` (and `line`) of `file`.
    public init(file: String, line: Int? = nil, pointer: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.pointer = pointer
        self.message = message
    }

    /// True for a construct the generator has no Swift for, which degrades to `JSON` or skips an
    /// operation, as opposed to a broken document.
    var isUnsupportedConstruct: Bool { message.hasPrefix("unsupported construct") }

    /// `file:line: error: message (at #/pointer)`.
    public var description: String {
        let location = line.map { "\(file):\($0)" } ?? file
        let at = pointer.map { " (at \($0))" } ?? ""
        return "\(location): error: \(message)\(at)"
    }
}

/// A JSON pointer (RFC 6901) built one key at a time: `#/paths/~1pets~1{id}/get`.
public struct JSONPointer: Hashable, CustomStringConvertible, Sendable {
    /// The unescaped keys from the root.
    public var keys: [String]

    /// The pointer made of `keys`.
    public init(_ keys: [String] = []) {
        self.keys = keys
    }

    /// Parses `#/a/b~1c` (or `/a/b~1c`).
    public init(parsing text: String) {
        var body = Substring(text)
        if body.hasPrefix("#") { body = body.dropFirst() }
        keys = body.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    /// This pointer one key deeper.
    public func appending(_ key: String) -> JSONPointer {
        JSONPointer(keys + [key])
    }

    /// This pointer one array index deeper.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// `#/a/b~1c`.
    public var description: String {
        "#" + keys.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
    }
}
#endif
