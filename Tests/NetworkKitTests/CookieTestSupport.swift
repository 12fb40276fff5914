import Foundation
@testable import NetworkKit
import Testing

/// What the cookie suites share: a fixed clock and URL helpers.
enum CookieTestSupport {
    /// 2011-03-13 07:06:40 UTC: the era the http-state cases were written in (their `Expires`
    /// dates in 2019 lie in the future then).
    static let now = Date(timeIntervalSince1970: 1_300_000_000)

    /// The URL `text` names (a failed test, not a crash, when it names none).
    static func url(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        try #require(URL(string: text), "not a URL: \(text)", sourceLocation: sourceLocation)
    }

    /// A jar holding what `fields` set from `from`, at `now`.
    static func jar(_ fields: [String], from: String, now: Date = now) throws -> CookieJar {
        let jar = CookieJar()
        jar.store(setCookieFields: fields, from: try url(from), now: now)
        return jar
    }

    /// The `Cookie` header `jar` sends to `to` at `now`.
    static func header(_ jar: CookieJar, to: String, now: Date = now) throws -> String? {
        jar.cookieHeader(for: try url(to), now: now)
    }

    /// The instant of a UTC calendar date, by Foundation's own calendar (an independent check
    /// of the jar's date arithmetic).
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))
    }
}
