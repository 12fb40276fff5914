import Foundation
@testable import NetworkKit
import Testing

/// The IETF http-state test cases (github.com/abarth/http-state), run when the environment
/// variable `NK_HTTP_STATE_DIR` names a checkout of that repository: the parser cases of
/// `tests/data/parser.json` through the jar and through curl, and the dates of
/// `tests/data/dates/`. Each prints how many cases pass and which fail.
@Suite("http-state conformance", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["NK_HTTP_STATE_DIR"] != nil, "set NK_HTTP_STATE_DIR to an http-state checkout"))
struct CookieConformanceTests {
    typealias Support = CookieTestSupport

    /// One parser case: the `Set-Cookie` values of the answer to `http://home.example.org:8888/
    /// cookie-parser?ID`, the URL then asked for, and the cookies it must send, in order.
    struct Case: Decodable, Sendable {
        struct Pair: Decodable, Equatable, Sendable, CustomStringConvertible {
            let name: String
            let value: String
            var description: String { "\(name)=\(value)" }
        }
        let test: String
        let received: [String]
        let sentTo: String?
        let sent: [Pair]

        enum CodingKeys: String, CodingKey {
            case test, received, sent
            case sentTo = "sent-to"
        }

        var id: String { test.lowercased().replacingOccurrences(of: "_", with: "-") }
        var origin: String { "http://home.example.org:8888/cookie-parser?\(id)" }

        /// The URL the cookies are sent to (a relative `sent-to` is read against the origin).
        func target() throws -> URL {
            let base = try Support.url("http://home.example.org:8888/")
            let text = sentTo ?? "/cookie-parser-result?\(id)"
            return try #require(URL(string: text, relativeTo: base)?.absoluteURL)
        }
    }

    static var directory: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["NK_HTTP_STATE_DIR"] ?? ".")
    }

    /// The enabled cases (those whose name does not start with `DISABLED_`).
    static func cases() throws -> [Case] {
        let data = try Data(contentsOf: directory.appendingPathComponent("tests/data/parser.json"))
        return try JSONDecoder().decode([Case].self, from: data).filter { !$0.test.hasPrefix("DISABLED_") }
    }

    /// The pairs of a `Cookie` header value.
    static func pairs(_ header: String?) -> [Case.Pair] {
        guard let header, !header.isEmpty else { return [] }
        return header.components(separatedBy: "; ").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return parts.count == 2 ? Case.Pair(name: String(parts[0]), value: String(parts[1]))
                : Case.Pair(name: "", value: pair)
        }
    }

    /// Prints the score of `results` (each case with the pairs sent), compared in order as the
    /// cases ask and also as sets (the order of the cookies ignored), and the failing cases;
    /// returns how many passed in order.
    static func report(_ title: String, _ results: [(Case, [Case.Pair])]) -> Int {
        let failing = results.filter { $0.0.sent != $0.1 }
        let unordered = results.filter { $0.0.sent.map(\.description).sorted() == $0.1.map(\.description).sorted() }.count
        print("\(title): \(results.count - failing.count) of \(results.count) http-state parser cases pass "
              + "(\(unordered) when the order of the cookies is not compared)")
        for (testCase, sent) in failing {
            print("  FAIL \(testCase.test): expected \(testCase.sent), sent \(sent)")
        }
        return results.count - failing.count
    }

    /// What the jar sends for `testCase` when everything happens at `now`.
    static func jarResult(_ testCase: Case, now: Date) throws -> [Case.Pair] {
        let jar = CookieJar()
        jar.store(setCookieFields: testCase.received, from: try Support.url(testCase.origin), now: now)
        return pairs(jar.cookieHeader(for: try testCase.target(), now: now))
    }

    @Test func parserCasesThroughTheJar() throws {
        let cases = try Self.cases()
        #expect(cases.count == 218)
        let then = try cases.map { ($0, try Self.jarResult($0, now: Support.now)) }
        let passed = Self.report("NetworkKit CookieJar, now = 2011-03-13", then)
        #expect(passed == cases.count)
        let today = try cases.map { ($0, try Self.jarResult($0, now: Date())) }
        _ = Self.report("NetworkKit CookieJar, now = today (Expires dates in 2019 have passed)", today)
    }

    /// `Support.now` for faketime.
    static let fakeTime = "2011-03-13 07:06:40"

    @Test func parserCasesThroughCurl() async throws {
        try await CookieCurlTests.requireCurl()
        let cases = try Self.cases()
        let byID = Dictionary(cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let server = try CookieTestServer.start { target, cookie in
            let id = target.split(separator: "?", maxSplits: 1).last.map(String.init) ?? ""
            let isOrigin = target.hasPrefix("/cookie-parser?")
            return .init(setCookies: isOrigin ? byID[id]?.received ?? [] : [], body: isOrigin ? "" : cookie ?? "")
        }
        defer { server.stop() }
        // Under faketime when it is installed, so that curl's clock reads 2011 like the jar's.
        let clocks: [String?] = (try? await CookieCurl.run(["--version"], fakeTime: Self.fakeTime)) != nil ? [Self.fakeTime, nil] : [nil]
        for fakeTime in clocks {
            var results: [(Case, [Case.Pair])] = []
            for testCase in cases {
                let sent = try await CookieCurl.run(["-s", "-g", "--path-as-is", "-b", "/dev/null", "--connect-to", "::127.0.0.1:\(server.port)",
                                                     testCase.origin, try testCase.target().absoluteString], fakeTime: fakeTime)
                results.append((testCase, Self.pairs(sent)))
            }
            let clock = fakeTime == nil ? "today" + (clocks.count == 1 ? " (faketime is not installed)" : "") : "2011-03-13 (faketime)"
            _ = Self.report("\(await CookieCurl.version() ?? "curl"), now = \(clock)", results)
        }
    }

    /// A date case: a cookie-date and the instant it names (nil: no date).
    struct DateCase: Decodable {
        let test: String
        let expected: String?
    }

    @Test(arguments: ["examples.json", "bsd-examples.json"])
    func dateExamples(file: String) throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent("tests/data/dates/\(file)"), encoding: .utf8)
        let json = text.split(separator: "\n").filter { !$0.hasPrefix("//") }.joined(separator: "\n")  // a licence header
        let cases = try JSONDecoder().decode([DateCase].self, from: Data(json.utf8))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let failing = cases.filter { CookieDate.parse(Array($0.test.utf8)) != $0.expected.flatMap(formatter.date(from:)) }
        print("http-state dates/\(file): \(cases.count - failing.count) of \(cases.count) pass")
        for failure in failing {
            print("  FAIL \(failure.test): expected \(failure.expected ?? "no date"), got \(String(describing: CookieDate.parse(Array(failure.test.utf8))))")
        }
        #expect(failing.isEmpty)
    }
}
