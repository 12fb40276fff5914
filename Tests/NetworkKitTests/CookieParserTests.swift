import Foundation
@testable import NetworkKit
import Testing

/// RFC 6265 §5.1.1 (cookie dates) and §5.2 (the Set-Cookie parser), case by case.
@Suite("Cookie parser and dates")
struct CookieParserTests {
    typealias Support = CookieTestSupport

    /// Dates the algorithm reads, with the UTC date and time they name.
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", [1994, 11, 6, 8, 49, 37]),
        ("Sunday, 06-Nov-94 08:49:37 GMT", [1994, 11, 6, 8, 49, 37]),
        ("Sun Nov  6 08:49:37 1994", [1994, 11, 6, 8, 49, 37]),
        ("Wednesday, 01-Jan-10 00:00:00 GMT", [2010, 1, 1, 0, 0, 0]),  // the weekday is wrong and ignored
        ("Thu, 01 Jan 70 00:00:00 GMT", [1970, 1, 1, 0, 0, 0]),
        ("Fri, 31 Dec 69 23:59:59 GMT", [2069, 12, 31, 23, 59, 59]),
        ("Mon, 10 Dec 99 1:2:3 GMT", [1999, 12, 10, 1, 2, 3]),
        ("Thu, 10 Dec 2009 13:57:2 GMT", [2009, 12, 10, 13, 57, 2]),
        ("Tue, 29 Feb 2000 12:00:00 GMT", [2000, 2, 29, 12, 0, 0]),
        ("Fri, 07 Aug 2019 08:04:19 GMT", [2019, 8, 7, 8, 4, 19]),  // 7 August 2019 was a Wednesday
        ("25 DECEMBER 2020 10:00:00", [2020, 12, 25, 10, 0, 0]),
        ("2020 dec 25 10:00:00", [2020, 12, 25, 10, 0, 0]),
        ("Wed Dec 12 2007 08:44:07 GMT-0500 (EST)", [2007, 12, 12, 8, 44, 7]),
        ("Thu, 31 Dec 23:55:55 2037 GMT", [2037, 12, 31, 23, 55, 55]),
        ("01 Jan 1601 00:00:00", [1601, 1, 1, 0, 0, 0]),
        ("31 Dec 9999 23:59:59", [9999, 12, 31, 23, 59, 59]),
    ])
    func validDate(text: String, parts: [Int]) throws {
        let expected = try #require(Support.utc(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]))
        #expect(CookieDate.parse(Array(text.utf8)) == expected)
    }

    /// Texts that are no cookie-date: a part missing, out of range or a day its month lacks.
    @Test(arguments: [
        "", "garbage", "Tue, 29 Feb 2001 12:00:00 GMT", "31 Apr 2020 00:00:00", "10 Dec 2007 24:00:00",
        "10 Dec 2007 23:60:00", "10 Dec 2007 23:59:60", "32 Dec 2007 00:00:00", "0 Dec 2007 00:00:00",
        "10 Dec 1600 00:00:00", "10 Dec 2007", "10 2007 00:00:00", "Mon, 01-Jan-2011 00: 00:00 GMT",
        "10 Dec 7 00:00:00", "10 Dec 12345 00:00:00", "10 Dex 2007 00:00:00", "10 Dec 2007 123:00:00",
    ])
    func invalidDate(text: String) {
        #expect(CookieDate.parse(Array(text.utf8)) == nil)
    }

    /// How the name-value pair is split and trimmed; nil where the line is ignored.
    @Test(arguments: [
        ("a=b", ["a", "b"]), ("  a  =  b  ", ["a", "b"]), ("a\t=\tb\t", ["a", "b"]), ("a=", ["a", ""]),
        ("a==b", ["a", "=b"]), ("a=\"quoted value\"", ["a", "\"quoted value\""]), ("a=\"x;y\"", ["a", "\"x"]),
        ("a=b,c=d", ["a", "b,c=d"]), ("na me=va lue", ["na me", "va lue"]), ("ü=春节", ["ü", "春节"]),
        ("=\u{301}a", nil), ("a", nil), ("=b", nil), ("", nil), (" = b", nil), (";a=b", nil), ("a;b=c", nil),
    ] as [(String, [String]?)])
    func nameAndValue(line: String, expected: [String]?) {
        let parsed = SetCookieParser.parse(line, now: Support.now)
        #expect(parsed.map { [$0.name, $0.value] } == expected)
    }

    static let expires2021 = CookieTestSupport.utc(2021, 6, 9, 10, 18, 14)
    static let inAMinute = CookieTestSupport.now.addingTimeInterval(60)

    /// Attributes: any case, last one wins, Max-Age over Expires, invalid ones ignored.
    @Test(arguments: [
        ("a=b; Max-Age=60", ParsedSetCookie(name: "a", value: "b", expires: inAMinute)),
        ("a=b; mAX-aGE=60", ParsedSetCookie(name: "a", value: "b", expires: inAMinute)),
        ("a=b; max-age=0", ParsedSetCookie(name: "a", value: "b", expires: .distantPast)),
        ("a=b; Max-Age=-5", ParsedSetCookie(name: "a", value: "b", expires: .distantPast)),
        ("a=b; Max-Age=-0", ParsedSetCookie(name: "a", value: "b", expires: .distantPast)),
        ("a=b; Max-Age=abc", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=1.5", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=+5", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=-", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Max-Age=99999999999999999999", ParsedSetCookie(name: "a", value: "b", expires: .distantFuture)),
        ("a=b; Max-Age=60; Max-Age=x", ParsedSetCookie(name: "a", value: "b", expires: inAMinute)),
        ("a=b; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT", ParsedSetCookie(name: "a", value: "b", expires: inAMinute)),
        ("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60", ParsedSetCookie(name: "a", value: "b", expires: inAMinute)),
        ("a=b; EXPIRES=Wed, 09 Jun 2021 10:18:14 GMT", ParsedSetCookie(name: "a", value: "b", expires: expires2021)),
        ("a=b; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Expires=never", ParsedSetCookie(name: "a", value: "b", expires: expires2021)),
        ("a=b; Expires=31 Dec 9999 23:59:59", ParsedSetCookie(name: "a", value: "b", expires: .distantFuture)),
        ("a=b; DoMaIn=.Example.COM", ParsedSetCookie(name: "a", value: "b", domain: "example.com")),
        ("a=b; Domain=..x.com", ParsedSetCookie(name: "a", value: "b", domain: ".x.com")),
        ("a=b; Domain=x.com; Domain=", ParsedSetCookie(name: "a", value: "b", domain: "x.com")),
        ("a=b; Domain=a.com; domain=b.com", ParsedSetCookie(name: "a", value: "b", domain: "b.com")),
        ("a=b; Path=/x", ParsedSetCookie(name: "a", value: "b", path: "/x")),
        ("a=b; path = /x/y/ ", ParsedSetCookie(name: "a", value: "b", path: "/x/y/")),
        ("a=b; Path=x", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Path=/x; Path=", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Path=; Path=/x", ParsedSetCookie(name: "a", value: "b", path: "/x")),
        ("a=b; Path", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Secure", ParsedSetCookie(name: "a", value: "b", secure: true)),
        ("a=b; SECURE=no", ParsedSetCookie(name: "a", value: "b", secure: true)),
        ("a=b; secure qux", ParsedSetCookie(name: "a", value: "b")),
        ("a=b;HttpOnly;;  ;secure;", ParsedSetCookie(name: "a", value: "b", secure: true, httpOnly: true)),
        ("a=b; \"Secure\"", ParsedSetCookie(name: "a", value: "b")),
        ("a=b; Version=1; Comment=x; SameSite=Strict", ParsedSetCookie(name: "a", value: "b")),
    ])
    func attributes(line: String, expected: ParsedSetCookie) {
        #expect(SetCookieParser.parse(line, now: Support.now) == expected)
    }

    @Test func cookieParseAppliesTheStorageModelToTheURL() throws {
        let url = try Support.url("http://WWW.Example.com/docs/page.html")
        let cookie = try #require(Cookie.parse(setCookie: "id=1; HttpOnly", from: url, now: Support.now))
        #expect(cookie.domain == "www.example.com" && cookie.hostOnly && cookie.path == "/docs" && cookie.httpOnly)
        #expect(cookie.creation == Support.now && cookie.lastAccess == Support.now && cookie.expires == nil)
        let wide = try #require(Cookie.parse(setCookie: "id=1; Domain=EXAMPLE.com", from: url, now: Support.now))
        #expect(wide.domain == "example.com" && !wide.hostOnly && wide.path == "/docs")
        #expect(Cookie.parse(setCookie: "id=1; Domain=other.com", from: url, now: Support.now) == nil)
        #expect(Cookie.parse(setCookie: "id=1", from: try Support.url("file:///tmp/x"), now: Support.now) == nil)
        let gone = try #require(Cookie.parse(setCookie: "id=1; Max-Age=0", from: url, now: Support.now))
        #expect(gone.isExpired(at: Support.now))
    }
}
