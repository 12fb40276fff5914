/// The shape a JSON answer must have (YTKNetwork's `jsonValidator`), checked before the answer
/// is used, so a server that changes its format fails with the key path that no longer fits
/// instead of a model full of defaults.
///
/// ```swift
/// let shape: JSONShape = ["nick": .string, "level": .number, "items": [["id": .integer]],
///                         "avatar": .optional(.string)]
/// JSONParser(contentKeyPath: "data", shape: shape)
/// ```
/// Object shapes list the keys that must be there (extra keys are fine); `.optional` allows a
/// key to be missing or `null`. An array shape of one element applies it to every element.
public indirect enum JSONShape: Sendable, Equatable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral {
    /// Anything, `null` included.
    case any
    /// A string.
    case string
    /// Any number.
    case number
    /// A number without a fraction.
    case integer
    /// `true` or `false`.
    case bool
    /// An object with at least these keys, each of its shape.
    case object([String: JSONShape])
    /// An array whose every element has this shape.
    case array(JSONShape)
    /// This shape, or `null`, or (as an object member) no key at all.
    case optional(JSONShape)

    /// `["key": shape, …]` is an object shape.
    public init(dictionaryLiteral elements: (String, JSONShape)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// `[shape]` is an array of that shape; `[]` an array of anything.
    public init(arrayLiteral elements: JSONShape...) {
        self = .array(elements.first ?? .any)
    }

    /// Throws `ParseError` naming the first key path (`items/3/id`) whose value does not fit.
    public func validate(_ json: JSON) throws {
        if let mismatch = self.mismatch(json, at: []) {
            throw ParseError(parser: "json", reason: "unexpected shape at \(mismatch)", kind: .shape)
        }
    }

    private func mismatch(_ json: JSON, at path: [String]) -> String? {
        let location = path.isEmpty ? "top level" : path.joined(separator: "/")
        switch (self, json) {
        case (.any, _), (.string, .string), (.number, .int), (.number, .double), (.integer, .int), (.bool, .bool),
             (.optional, .null):
            return nil
        case (.integer, .double(let value)) where value.rounded() == value:
            return nil
        case (.optional(let wrapped), _):
            guard let inner = wrapped.mismatch(json, at: path) else { return nil }
            switch (wrapped, json) {
            case (.object, .object), (.array, .array): return inner
            default: return "\(location): expected \(expectation), got \(json.kindName)"
            }
        case (.object(let members), .object(let values)):
            for key in members.keys.sorted() {
                guard let shape = members[key] else { continue }
                guard let value = values[key] else {
                    if case .optional = shape { continue }
                    return "\((path + [key]).joined(separator: "/")): missing"
                }
                if let mismatch = shape.mismatch(value, at: path + [key]) { return mismatch }
            }
            return nil
        case (.array(let element), .array(let values)):
            for (index, value) in values.enumerated() {
                if let mismatch = element.mismatch(value, at: path + [String(index)]) { return mismatch }
            }
            return nil
        default:
            return "\(location): expected \(expectation), got \(json.kindName)"
        }
    }

    private var expectation: String {
        switch self {
        case .any: "anything"
        case .string: "a string"
        case .number: "a number"
        case .integer: "an integer"
        case .bool: "a Boolean"
        case .object: "an object"
        case .array: "an array"
        case .optional(let wrapped): wrapped.expectation + " or null"
        }
    }
}
