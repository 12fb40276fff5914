import Foundation

/// What reading a cookie file came to.
public struct CookieFileReport: Sendable, Equatable {
    /// Cookies read from the file and stored (the jar's limits may keep fewer of them).
    public var loaded = 0
    /// Cookie lines that had expired at the time given to the reader, and were left out.
    public var expired = 0
    /// Lines that were neither a comment, a blank line nor a well-formed cookie, and were left
    /// out.
    public var malformed = 0
    /// The 1-based number of the first malformed line, if any.
    public var firstMalformedLine: Int?
}

/// Why a cookie file could not be read or written at all. (A file that can be read is never
/// an error: its malformed lines are counted in ``CookieFileReport``.)
public enum CookieFileError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read; `reason` is what the system said.
    case unreadable(file: URL, reason: String)
    /// The file is larger than the reader takes (`limit` bytes).
    case tooLarge(file: URL, bytes: Int64, limit: Int64)
    /// The file could not be written; `reason` is what the system said.
    case unwritable(file: URL, reason: String)

    /// The failure in words, naming the file.
    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "cannot read the cookie file \(file.path): \(reason)"
        case .tooLarge(let file, let bytes, let limit):
            "the cookie file \(file.path) has \(bytes) bytes, more than the \(limit) a cookie jar reads"
        case .unwritable(let file, let reason): "cannot write the cookie file \(file.path): \(reason)"
        }
    }
}

/// The Netscape cookie file format, as curl (`-c`, `-b`) and wget write and read it: one cookie
/// a line, seven fields separated by tabs — domain (with a leading `.` when the cookie is not
/// host-only), `TRUE`/`FALSE` for "subdomains too", path, `TRUE`/`FALSE` for secure, expiry in
/// seconds since 1970 (`0` for a session cookie), name, value. An HttpOnly cookie's line starts
/// with `#HttpOnly_`; other lines starting with `#` are comments.
enum NetscapeCookieFile {
    /// The first line; some readers (Python's `MozillaCookieJar`) insist on it.
    static let header = "# Netscape HTTP Cookie File\n# Written by NetworkKit's CookieJar.\n\n"
    /// The largest file read, in bytes.
    static let maxFileBytes = 64 << 20
    private static let httpOnlyPrefix = "#HttpOnly_"

    /// The line for `cookie` (without its newline), or nil when the format cannot hold it: a
    /// tab or line break in one of its fields.
    static func line(for cookie: Cookie) -> String? {
        let fields = [cookie.name, cookie.value, cookie.domain, cookie.path]
        guard !fields.contains(where: { $0.contains(where: { $0 == "\t" || $0.isNewline }) }) else { return nil }
        // A persistent cookie never writes 0, which would read back as a session cookie.
        let expiry = cookie.expires.map { max(1, Int64(min($0, .distantFuture).timeIntervalSince1970.rounded(.down))) } ?? 0
        let domain = (cookie.httpOnly ? httpOnlyPrefix : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
        return [domain, flag(!cookie.hostOnly), cookie.path, flag(cookie.secure), String(expiry),
                cookie.name, cookie.value].joined(separator: "\t")
    }

    /// What a line holds.
    enum Line: Equatable {
        case skip
        case cookie(Cookie)
        case malformed
    }

    /// Reads one line (without its line break), stamping a cookie with `now` as its creation
    /// and last access.
    static func parse(_ bytes: ArraySlice<UInt8>, now: Date) -> Line {
        guard let text = String(bytes: bytes, encoding: .utf8) else { return .malformed }
        var rest = Substring(text)
        let httpOnly = rest.hasPrefix(httpOnlyPrefix)
        if httpOnly { rest = rest.dropFirst(httpOnlyPrefix.count) }
        if !httpOnly, rest.hasPrefix("#") || rest.allSatisfy(\.isWhitespace) { return .skip }
        guard bytes.count <= SetCookieParser.maxLineBytes else { return .malformed }
        var fields = rest.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 6 { fields.append("") }  // curl reads a line without a value so
        guard fields.count == 7, let subdomains = flag(fields[1]), let secure = flag(fields[3]),
              let expires = expiry(fields[4]) else { return .malformed }
        let name = fields[5], value = fields[6], path = fields[2]
        var domain = fields[0].lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        guard !domain.isEmpty, !domain.contains(where: { $0 == " " || $0 == "/" }), path.hasPrefix("/"), !name.isEmpty,
              name.utf8.count + value.utf8.count <= SetCookieParser.maxNameValueBytes,
              !(fields.joined().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }) else { return .malformed }
        // As from a Set-Cookie: a single label or an address covers no other host.
        let hostOnly = !subdomains || CookieMatching.isSingleLabel(domain) || CookieMatching.isAddress(domain)
        return .cookie(Cookie(name: name, value: value, domain: domain, hostOnly: hostOnly, path: path, secure: secure,
                              httpOnly: httpOnly, expires: expires, creation: now, lastAccess: now))
    }

    private static func flag(_ value: Bool) -> String {
        value ? "TRUE" : "FALSE"
    }

    private static func flag(_ text: String) -> Bool? {
        switch text.uppercased() {
        case "TRUE": true
        case "FALSE": false
        default: nil
        }
    }

    /// The expiry field: digits, `0` for a session cookie (`.some(nil)`); nil when malformed.
    private static func expiry(_ text: String) -> Date?? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        guard let seconds = Int64(text) else { return .some(.distantFuture) }  // more digits than Int64 holds
        if seconds == 0 { return .some(nil) }
        return .some(min(Date(timeIntervalSince1970: TimeInterval(seconds)), .distantFuture))
    }
}
