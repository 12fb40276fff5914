import Foundation

extension CookieJar {
    /// A jar holding the cookies of the Netscape cookie file `file` (see ``load(from:now:)``),
    /// with the default limits. Use ``load(from:now:)`` on an empty jar to learn how many lines
    /// were left out.
    /// - Throws: ``CookieFileError`` when the file cannot be read at all.
    public convenience init(contentsOf file: URL, now: Date = Date()) throws {
        self.init()
        try load(from: file, now: now)
    }

    /// Writes the jar's unexpired cookies at `now` to `file` in the Netscape cookie file format
    /// that curl's `-b` and wget's `--load-cookies` read, replacing the file at once (atomically).
    ///
    /// Each cookie is one line of seven tab-separated fields: the domain (after a `.` when the
    /// cookie goes to subdomains too, after `#HttpOnly_` when it is HttpOnly), `TRUE` or `FALSE`
    /// for subdomains, the path, `TRUE` or `FALSE` for secure, the expiry in seconds since 1970
    /// (`0` for a session cookie), the name and the value. A cookie with a tab in a field cannot
    /// be written in this format and is left out.
    /// - Throws: ``CookieFileError/unwritable(file:reason:)``.
    public func write(to file: URL, now: Date = Date()) throws {
        do {
            try Data(netscapeText(now: now).utf8).write(to: file, options: .atomic)
        } catch {
            throw CookieFileError.unwritable(file: file, reason: error.localizedDescription)
        }
    }

    /// The text ``write(to:now:)`` writes: the jar's cookies that have not expired at `now`, in
    /// the Netscape cookie file format.
    public func netscapeText(now: Date = Date()) -> String {
        let lines = allCookies.filter { !$0.isExpired(at: now) }.compactMap(NetscapeCookieFile.line(for:))
        return NetscapeCookieFile.header + lines.map { $0 + "\n" }.joined()
    }

    /// Adds the cookies of the Netscape cookie file `file` (as curl's `-c` and wget's
    /// `--save-cookies` write it; see ``write(to:now:)``) to the jar, in the file's order, as
    /// created at `now`. A cookie replaces the one with its name, domain and path.
    ///
    /// Blank lines and comments (`#`, except the `#HttpOnly_` prefix) are skipped. A line of six
    /// fields has an empty value, as curl reads it. Lines that had expired at `now` are left
    /// out, and so are malformed ones: not seven fields, a flag other than `TRUE`/`FALSE`, an
    /// expiry that is not digits, a path without a leading `/`, an empty name or domain, a
    /// control character, more than 8 KiB, or a name and value over 4096 bytes. A
    /// "subdomains too" flag on a single-label domain or an IP address is read as host-only,
    /// as the jar would store it from a `Set-Cookie`.
    /// - Returns: how many cookies were loaded, and how many lines were left out.
    /// - Throws: ``CookieFileError`` when the file cannot be read, or is over 64 MiB.
    @discardableResult
    public func load(from file: URL, now: Date = Date()) throws -> CookieFileReport {
        let data: Data
        do {
            data = try Data(contentsOf: file, options: .mappedIfSafe)
        } catch {
            throw CookieFileError.unreadable(file: file, reason: error.localizedDescription)
        }
        guard data.count <= NetscapeCookieFile.maxFileBytes else {
            throw CookieFileError.tooLarge(file: file, bytes: Int64(data.count), limit: Int64(NetscapeCookieFile.maxFileBytes))
        }
        var bytes = Array(data)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a UTF-8 byte order mark
        var report = CookieFileReport()
        var cookies: [Cookie] = []
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let content = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            switch NetscapeCookieFile.parse(content, now: now) {
            case .skip: continue
            case .cookie(let cookie) where cookie.isExpired(at: now): report.expired += 1
            case .cookie(let cookie): cookies.append(cookie)
            case .malformed:
                report.malformed += 1
                report.firstMalformedLine = report.firstMalformedLine ?? index + 1
            }
        }
        report.loaded = cookies.count
        insert(cookies, now: now)
        return report
    }
}
