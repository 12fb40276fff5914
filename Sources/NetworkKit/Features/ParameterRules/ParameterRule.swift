import Foundation

/// A check a request's parameters must pass before anything is sent; one that fails finishes the
/// request with `NetworkError.invalidParameter` naming the parameter and why.
///
/// ```swift
/// request.parameterRules = [.required("phone"), .matches("phone", #"^\+?[0-9]{6,15}$"#),
///                           .range("age", 0...150)]
/// ```
public struct ParameterRule: Sendable {
    /// The parameter checked.
    public let name: String
    private let check: @Sendable (JSON?) -> String?

    /// A rule: `check` gets the parameter's value (nil when absent) and returns why it is wrong,
    /// or nil when it is fine.
    public init(_ name: String, check: @escaping @Sendable (JSON?) -> String?) {
        self.name = name
        self.check = check
    }

    /// Why `parameters` break this rule, or nil.
    func violation(in parameters: [String: JSON]) -> String? {
        check(parameters[name])
    }

    /// The parameter must be there and not `null`.
    public static func required(_ name: String) -> ParameterRule {
        ParameterRule(name) { value in value == nil || value == .null ? "is required" : nil }
    }

    /// When present, the parameter must not be an empty string, array or object.
    public static func nonEmpty(_ name: String) -> ParameterRule {
        ParameterRule(name) { value in
            switch value {
            case .string(let text) where text.isEmpty: "must not be empty"
            case .array(let elements) where elements.isEmpty: "must not be empty"
            case .object(let members) where members.isEmpty: "must not be empty"
            default: nil
            }
        }
    }

    /// When present, the parameter must be a string matching the regular expression `pattern`.
    public static func matches(_ name: String, _ pattern: String) -> ParameterRule {
        ParameterRule(name) { value in
            guard let value else { return nil }
            guard let text = value.stringValue else { return "must be a string" }
            guard let expression = try? NSRegularExpression(pattern: pattern) else { return "has an invalid rule pattern" }
            let whole = NSRange(text.startIndex..., in: text)
            return expression.firstMatch(in: text, range: whole) == nil ? "does not match \(pattern)" : nil
        }
    }

    /// When present, the parameter must be a number within `range`.
    public static func range(_ name: String, _ range: ClosedRange<Double>) -> ParameterRule {
        ParameterRule(name) { value in
            guard let value else { return nil }
            guard let number = value.doubleValue else { return "must be a number" }
            return range.contains(number) ? nil : "must be within \(range.lowerBound)...\(range.upperBound)"
        }
    }

    /// When present, the parameter must be a string whose length (in characters) is within `range`.
    public static func length(_ name: String, _ range: ClosedRange<Int>) -> ParameterRule {
        ParameterRule(name) { value in
            guard let value else { return nil }
            guard let text = value.stringValue else { return "must be a string" }
            return range.contains(text.count) ? nil : "must be \(range.lowerBound) to \(range.upperBound) characters long"
        }
    }
}

extension AnyRequest {
    /// Checks the parameters (the service's common ones included) must pass before the request
    /// is sent, after the request's ``interceptors`` prepared it; nothing is sent when one fails
    /// (``NetworkError/invalidParameter(name:reason:)``).
    public var parameterRules: [ParameterRule] {
        get { self[option: \.interceptors].builtIn(ParameterRulesInterceptor.self)?.rules ?? [] }
        set { withLocked { $0.options.interceptors.setBuiltIn(newValue.isEmpty ? nil : ParameterRulesInterceptor(newValue)) } }
    }
}
