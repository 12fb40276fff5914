import Foundation

/// A `Set-Cookie` field value read by the algorithm of RFC 6265 §5.2, before the storage model
/// (§5.3) weighs it against the request URL.
struct ParsedSetCookie: Equatable, Sendable {
    var name: String
    var value: String
    /// The expiry of the last valid `Max-Age` if any, else of the last valid `Expires`; nil
    /// for a session cookie. `Date.distantPast` for a `Max-Age` of zero or less.
    var expires: Date?
    /// The last non-empty `Domain`, without one leading `.`, in lower case.
    var domain: String?
    /// The last `Path` when it starts with `/`; nil when there is none, or when the last one is
    /// empty or does not start with `/` (both mean the default path).
    var path: String?
    var secure = false
    var httpOnly = false
}

/// RFC 6265 §5.2, with the limits a client needs against hostile servers.
///
/// The name-value pair is what precedes the first `;`; it is split at its first `=` and both
/// halves are trimmed of spaces and tabs. A pair without `=`, or with an empty name, makes the
/// whole line ignored. Each attribute is split and trimmed the same way and recognised in any
/// case; unknown attributes are ignored. Quotes are not special: a quoted value is kept with
/// its quotes, and a `;` inside quotes still ends it.
///
/// Limits, each making the whole line ignored: more than `maxLineBytes` bytes; a name and value
/// of more than `maxNameValueBytes` bytes together; a control character other than a tab
/// (RFC 6265bis §5.6 step 1: a CR, LF or NUL must never reach a `Cookie` header). An attribute
/// value over `maxAttributeValueBytes` bytes is ignored (RFC 6265bis), the rest of the line kept.
enum SetCookieParser {
    /// The longest `Set-Cookie` value read, in bytes.
    static let maxLineBytes = 8 * 1024
    /// The largest name plus value, in bytes.
    static let maxNameValueBytes = 4096
    /// The largest attribute value, in bytes.
    static let maxAttributeValueBytes = 1024

    /// The cookie that `line` sets, with relative expiry (`Max-Age`) counted from `now`; nil
    /// when §5.2 (or a limit) says to ignore the line.
    static func parse(_ line: String, now: Date) -> ParsedSetCookie? {
        let bytes = Array(line.utf8)
        guard bytes.count <= maxLineBytes, !bytes.contains(where: isForbiddenControl) else { return nil }
        let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        let pair = bytes[..<semicolon]
        guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(pair[..<equals]), value = trimmed(pair[(equals + 1)...])
        guard !name.isEmpty, name.count + value.count <= maxNameValueBytes else { return nil }
        var cookie = ParsedSetCookie(name: string(name), value: string(value))
        var maxAge: Date?, expires: Date?
        for attribute in bytes[semicolon...].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).dropFirst() {
            let equals = attribute.firstIndex(of: UInt8(ascii: "=")) ?? attribute.endIndex
            let key = string(trimmed(attribute[..<equals])).lowercased()
            let value = equals < attribute.endIndex ? trimmed(attribute[(equals + 1)...]) : []
            guard value.count <= maxAttributeValueBytes else { continue }
            switch key {
            case "expires": expires = CookieDate.parse(value).map { min($0, .distantFuture) } ?? expires
            case "max-age": maxAge = maxAgeExpiry(value, now: now) ?? maxAge
            case "domain": cookie.domain = domain(value) ?? cookie.domain
            case "path": cookie.path = value.first == UInt8(ascii: "/") ? string(value) : nil
            case "secure": cookie.secure = true
            case "httponly": cookie.httpOnly = true
            default: break
            }
        }
        cookie.expires = maxAge ?? expires
        return cookie
    }

    /// `Max-Age`: an optional `-` and digits only, else nil (the attribute is ignored). Zero or
    /// less is `Date.distantPast`; a huge count stops at `Date.distantFuture`.
    private static func maxAgeExpiry(_ value: ArraySlice<UInt8>, now: Date) -> Date? {
        let negative = value.first == UInt8(ascii: "-")
        let digits = negative ? value.dropFirst() : value
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        let significant = digits.drop { $0 == UInt8(ascii: "0") }
        if negative || significant.isEmpty { return .distantPast }
        // More than 12 digits is past distantFuture from any present date.
        guard significant.count <= 12, let seconds = Int(string(significant)) else { return .distantFuture }
        return min(now.addingTimeInterval(TimeInterval(seconds)), .distantFuture)
    }

    /// `Domain`: ignored when empty; one leading `.` dropped; lower case.
    private static func domain(_ value: ArraySlice<UInt8>) -> String? {
        guard !value.isEmpty else { return nil }
        let withoutDot = value.first == UInt8(ascii: ".") ? value.dropFirst() : value
        return string(withoutDot).lowercased()
    }

    /// A control character other than a horizontal tab: %x00-08 / %x0A-1F / %x7F.
    private static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
              let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    /// Bytes cut out of a `String` at ASCII delimiters are whole UTF-8, so this never repairs.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
