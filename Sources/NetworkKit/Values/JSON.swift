import Foundation

/// A JSON value that is `Sendable`, `Hashable` and `Codable`: what the JSON parser produces
/// and what request parameters are written in.
///
/// Literals work as expected: `let body: JSON = ["name": "Ann", "tags": ["a", "b"], "age": 3]`.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])
}

extension JSON {
    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or nil when out of range or not an array.
    public subscript(index: Int) -> JSON? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as `Int64` when it is integral (from an int, or a double with no fraction).
    public var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.2e18: return Int64(value)
        default: return nil
        }
    }

    /// The number as `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSON]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// The name of this value's kind, for error messages (`object`, `array`, `string`, …).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Loose equality for business codes: `0`, `0.0` and `"0"` are the same code,
    /// as servers mix numbers and strings; `true` matches `"true"`.
    package func matchesCode(_ other: JSON) -> Bool {
        if self == other { return true }
        guard let lhs = codeText, let rhs = other.codeText else { return false }
        return lhs == rhs
    }

    /// The canonical text of a scalar, used to compare codes.
    private var codeText: String? {
        switch self {
        case .string(let value):
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if let number = Double(trimmed), let integral = JSON.double(number).intValue { return String(integral) }
            return trimmed
        case .int(let value): return String(value)
        case .double(let value): return intValue.map { String($0) } ?? String(value)
        case .bool(let value): return String(value)
        case .null, .array, .object: return nil
        }
    }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text (`"0"` for the string 0, `0` for the number).
    public var description: String {
        (try? String(decoding: serialized(), as: UTF8.self)) ?? "\(kindName)"
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    /// A dictionary literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
