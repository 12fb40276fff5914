/// A path into JSON such as `content/entrance` or `data/items/0/name`:
/// components separated by `/`, numbers index arrays.
public struct JSONKeyPath: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The path's components, in order.
    public let components: [String]

    /// Parses `a/b/0`; empty components (leading, trailing or doubled slashes) are ignored.
    public init(_ path: String) {
        components = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// A key path from a string literal.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The path as written, `a/b/0`.
    public var description: String {
        components.joined(separator: "/")
    }
}

extension JSON {
    /// The value at `path`, or a `ParseError` naming the component that was missing
    /// or of the wrong kind.
    public func value(at path: JSONKeyPath, parser: String = "json") throws -> JSON {
        var current = self
        var walked: [String] = []
        for component in path.components {
            walked.append(component)
            switch current {
            case .object(let members):
                guard let next = members[component] else {
                    throw ParseError(parser: parser, reason: "no key \"\(component)\"",
                                     keyPath: walked.joined(separator: "/"), kind: .keyPath)
                }
                current = next
            case .array(let elements):
                guard let index = Int(component) else {
                    throw ParseError(parser: parser, reason: "\"\(component)\" is not an array index",
                                     keyPath: walked.joined(separator: "/"), kind: .keyPath)
                }
                guard elements.indices.contains(index) else {
                    throw ParseError(parser: parser,
                                     reason: "index \(index) out of range (count \(elements.count))",
                                     keyPath: walked.joined(separator: "/"), kind: .keyPath)
                }
                current = elements[index]
            default:
                throw ParseError(parser: parser, reason: "cannot look up \"\(component)\" in a \(current.kindName)",
                                 keyPath: walked.joined(separator: "/"), kind: .keyPath)
            }
        }
        return current
    }
}
