#if CodeGeneration
import Foundation

/// Turns names from JSON and OpenAPI (`snake_case`, `kebab-case`, `2fa`, `class`) into Swift
/// identifiers, and keeps a set of names unique.
public enum SwiftNames {
    /// Swift's keywords, which a property or case named so must write in backticks.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "async", "consume", "copy", "discard", "each", "borrowing",
        "consuming", "macro", "package", "some", "any", "Type", "Protocol",
    ]

    /// Type names a generated type must not take, because the generated code or its readers use
    /// them (a nested `Data` would hide Foundation's inside its parent).
    static let reservedTypeNames: Set<String> = [
        "Any", "Array", "Bool", "CharacterSet", "Codable", "CodableConverter", "CodingKeys", "Data", "Date",
        "DecodingError", "Decodable", "Decoder", "Dictionary", "Double", "Download", "DownloadedFile", "Encodable",
        "Encoder", "Error", "Float", "Hashable", "Int", "Int32", "Int64", "JSON", "JSONDecoder", "JSONEncoder",
        "JSONKeyPath", "JSONParser", "ModelParser", "ModelRegistry", "MultipartForm", "NetworkError", "Optional",
        "Protocol", "Request", "RequestBody", "Response", "Result", "Self", "Sendable", "Set", "String",
        "StringParser", "Type", "URL", "UUID",
    ]

    /// The words of `name`: split at `_`, `-`, spaces, dots and other non-alphanumerics, and at
    /// lower-to-upper case changes (`petId` → `pet`, `Id`; `HTTPCode` → `HTTP`, `Code`).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            guard CharacterSet.alphanumerics.contains(scalar), scalar.isASCII else {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            let isUpper = CharacterSet.uppercaseLetters.contains(scalar)
            if isUpper, let last = current.unicodeScalars.last {
                let lastIsUpper = CharacterSet.uppercaseLetters.contains(last)
                let nextIsLower = index + 1 < scalars.count && CharacterSet.lowercaseLetters.contains(scalars[index + 1])
                if !lastIsUpper || nextIsLower {
                    words.append(current)
                    current = ""
                }
            }
            current.unicodeScalars.append(scalar)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `pet_id` → `petId`, `first-name` → `firstName`, `URL` → `url`, `2fa` → `_2fa`; keywords in
    /// backticks (`` `class` ``). Empty or symbol-only names become `value`.
    public static func property(_ name: String) -> String {
        if isAlphanumeric(name) {
            // Already a Swift name: keep it, lowering its leading capitals (`URL` → `url`,
            // `HTTPCode` → `httpCode`, `ListEvents` → `listEvents`).
            let scalars = Array(name)
            var upper = 0
            while upper < scalars.count, scalars[upper].isUppercase { upper += 1 }
            let lowered = upper > 1 && upper < scalars.count ? upper - 1 : max(upper, 1)
            return escaped(String(scalars.prefix(lowered)).lowercased() + String(scalars.dropFirst(lowered)))
        }
        let parts = words(of: name)
        guard let first = parts.first else { return "value" }
        var result = first.lowercased()
        // A name that is one word in capitals keeps it lowercased whole: `URL` → `url`, `ID` → `id`.
        for word in parts.dropFirst() { result += capitalized(word) }
        return escaped(prefixedIfDigit(result))
    }

    /// `pet_status` → `PetStatus`, `user` → `User`; never a reserved type name (`Error` →
    /// `ErrorModel`).
    public static func type(_ name: String) -> String {
        var result = isAlphanumeric(name) ? name.prefix(1).uppercased() + name.dropFirst()
                                          : words(of: name).map(capitalized).joined()
        if result.isEmpty { result = "Value" }
        result = prefixedIfDigit(result)
        return reservedTypeNames.contains(result) || keywords.contains(result) ? result + "Model" : result
    }

    /// An identifier without backticks, for composing names (`getPet` + `Response`).
    static func bare(_ identifier: String) -> String {
        identifier.hasPrefix("`") ? String(identifier.dropFirst().dropLast()) : identifier
    }

    /// The singular of an English plural, for the element type of an array (`entries` → `entry`,
    /// `items` → `item`, `status` stays).
    public static func singular(_ name: String) -> String {
        let lower = name.lowercased()
        if lower.hasSuffix("ies"), name.count > 3 { return String(name.dropLast(3)) + "y" }
        if lower.hasSuffix("sses") || lower.hasSuffix("xes") || lower.hasSuffix("ches") || lower.hasSuffix("shes") {
            return String(name.dropLast(2))
        }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), !lower.hasSuffix("us"), !lower.hasSuffix("is"), name.count > 1 {
            return String(name.dropLast())
        }
        return name
    }

    /// True for ASCII letters and digits starting with a letter: a name Swift takes as it is.
    private static func isAlphanumeric(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
    }

    private static func capitalized(_ word: String) -> String {
        let lower = word.lowercased()
        return lower.prefix(1).uppercased() + lower.dropFirst()
    }

    private static func prefixedIfDigit(_ name: String) -> String {
        guard let first = name.unicodeScalars.first, CharacterSet.decimalDigits.contains(first) else { return name }
        return "_" + name
    }

    private static func escaped(_ name: String) -> String {
        // `self` cannot name a member, not even in backticks: `self.self` is the value itself.
        if name == "self" || name == "Self" { return name + "Value" }
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// True when `text` is an HTTP field name: an RFC 9110 token (letters, digits and
    /// ``!#$%&'*+-.^_`|~``), not empty.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// A Swift string literal of `text`, escaped.
    public static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Hands out names that are unique within one scope, appending 2, 3, … to repeats.
struct UniqueNames {
    /// Names this scope may not use; shared, never copied (scopes of large documents reserve
    /// thousands of component names).
    private let reserved: Set<String>
    private var taken: Set<String> = []

    init(reserved: Set<String> = []) {
        self.reserved = reserved
    }

    /// These names, and `names` reserved as well.
    init(reserved: Set<String>, also names: [String]) {
        self.reserved = reserved
        taken = Set(names)
    }

    /// `name`, or `name2`, `name3`… when taken (backticks are kept outside the number).
    mutating func claim(_ name: String) -> String {
        let bare = SwiftNames.bare(name)
        var candidate = bare
        var number = 2
        while taken.contains(candidate) || reserved.contains(candidate) {
            candidate = bare + String(number)
            number += 1
        }
        taken.insert(candidate)
        return candidate == bare ? name : candidate
    }
}
#endif
