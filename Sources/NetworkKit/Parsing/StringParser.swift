import Foundation

/// Decodes the body as text in the charset `Content-Type` names (UTF-8 when it names none).
public struct StringParser: ResponseParser {
    /// Used when the response names no charset.
    public var defaultEncoding: String.Encoding

    /// Creates the parser.
    public init(defaultEncoding: String.Encoding = .utf8) {
        self.defaultEncoding = defaultEncoding
    }

    /// Light: a small body parses in microseconds.
    public var isLightweight: Bool { true }

    /// The body as a string; a body not valid in its charset, or an unknown charset, is a `ParseError`.
    public func parse(_ response: Response) throws -> String {
        var encoding = defaultEncoding
        if let charset = response.charset {
            guard let named = Self.encoding(named: charset) else {
                throw ParseError(parser: "string", reason: "unsupported charset \"\(charset)\"")
            }
            encoding = named
        }
        if encoding == .utf8 {
            guard let text = String.validatingUTF8(response.data) else {
                throw ParseError(parser: "string", reason: "body is not valid utf-8", kind: .malformed)
            }
            return text
        }
        guard let text = String(data: response.data, encoding: encoding) else {
            throw ParseError(parser: "string", reason: "body is not valid \(response.charset ?? "\(encoding)")", kind: .malformed)
        }
        return text
    }

    /// The encoding for an IANA charset name, for the charsets Foundation decodes everywhere.
    public static func encoding(named charset: String) -> String.Encoding? {
        switch charset.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "us-ascii", "ascii": return .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": return .isoLatin1
        case "iso-8859-2", "latin2": return .isoLatin2
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1251", "cp1251": return .windowsCP1251
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "utf-32": return .utf32
        case "shift_jis", "shift-jis", "sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        default: return nil
        }
    }
}
