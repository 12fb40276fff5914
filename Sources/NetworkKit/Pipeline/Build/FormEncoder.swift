import Foundation

/// Form and query encoding: RFC 3986 percent-escaping, keys sorted, nested values written
/// the way Rails and PHP read them (`user[name]=Ann`, `tags[]=a&tags[]=b`).
enum FormEncoder {
    /// The characters left as they are: RFC 3986 unreserved.
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "-._~")
        set.insert(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return set
    }()

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static func encode(_ parameters: [String: JSON]) -> String {
        var pairs: [(String, String)] = []
        for key in parameters.keys.sorted() {
            if let value = parameters[key] { append(key: key, value: value, to: &pairs) }
        }
        return pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    private static func append(key: String, value: JSON, to pairs: inout [(String, String)]) {
        switch value {
        case .object(let members):
            for member in members.keys.sorted() {
                if let nested = members[member] { append(key: "\(key)[\(member)]", value: nested, to: &pairs) }
            }
        case .array(let elements):
            for element in elements { append(key: "\(key)[]", value: element, to: &pairs) }
        case .null:
            pairs.append((key, ""))
        case .string(let text):
            pairs.append((key, text))
        case .bool, .int, .double:
            pairs.append((key, value.description))
        }
    }
}
