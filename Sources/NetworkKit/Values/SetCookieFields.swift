/// `Set-Cookie` fields that a transport joined into one value with ", " (FoundationNetworking
/// joins repeated header fields that way), split back into one string per field.
///
/// A comma separates two fields when what follows it, after spaces, is a cookie name and `=`
/// (a token: no spaces, separators or control characters). The comma of an `Expires` date
/// (`Wed, 09 Jun 2027 10:18:14 GMT`) is followed by a day number and a space, so it stays.
enum SetCookieFields {
    /// The fields in `joined`, in order; empty ones dropped.
    static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        var fields: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), startsCookie(bytes, at: index + 1) {
                appendField(bytes[start..<index], to: &fields)
                start = index + 1
            }
            index += 1
        }
        appendField(bytes[start...], to: &fields)
        return fields
    }

    private static func appendField(_ bytes: ArraySlice<UInt8>, to fields: inout [String]) {
        let text = String(String(decoding: bytes, as: UTF8.self)[...].trimmingSpacesAndTabs)
        if !text.isEmpty { fields.append(text) }
    }

    /// True when `bytes` from `index` is spaces, then a token, then `=`.
    private static func startsCookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        while position < bytes.count, bytes[position] == UInt8(ascii: " ") || bytes[position] == UInt8(ascii: "\t") {
            position += 1
        }
        let nameStart = position
        while position < bytes.count, isTokenByte(bytes[position]) { position += 1 }
        return position > nameStart && position < bytes.count && bytes[position] == UInt8(ascii: "=")
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
