import Foundation
@testable import NetworkKit
import Testing

/// What a hostile server (or file) can send: long lines, control characters, huge counts,
/// extreme numbers. Nothing crashes, nothing grows past the limits, nothing takes long.
@Suite("Cookie jar against hostile input")
struct CookieHostileInputTests {
    typealias Support = CookieTestSupport

    @Test func aLineOver8KiBIsIgnored() {
        let padding = String(repeating: "; x=1", count: 2000)
        let atLimit = String(("a=b" + padding).prefix(SetCookieParser.maxLineBytes))
        #expect(SetCookieParser.parse(atLimit, now: Support.now)?.name == "a")
        #expect(SetCookieParser.parse(atLimit + "1", now: Support.now) == nil)
    }

    @Test func aNameAndValueOver4096BytesAreIgnored() {
        let value = String(repeating: "v", count: 4095)
        #expect(SetCookieParser.parse("n=" + value, now: Support.now)?.value == value)
        #expect(SetCookieParser.parse("nn=" + value, now: Support.now) == nil)
        #expect(SetCookieParser.parse("n=" + String(repeating: "é", count: 2048), now: Support.now) == nil)  // bytes, not characters
    }

    @Test func anAttributeValueOver1024BytesIsIgnored() throws {
        let long = "/" + String(repeating: "p", count: 1024)
        #expect(SetCookieParser.parse("a=b; Path=/short; Path=\(long)", now: Support.now)?.path == "/short")
        #expect(SetCookieParser.parse("a=b; Path=\(long.dropLast())", now: Support.now)?.path == String(long.dropLast()))
    }

    @Test(arguments: ["a=b\r\nSet-Cookie: evil=1", "a=b\nc", "a=b\0c", "a=\u{7F}", "a=b; Path=/\r", "\u{1B}[31m=red", "a=b\u{0B}"])
    func controlCharactersMakeTheLineIgnored(line: String) throws {
        #expect(SetCookieParser.parse(line, now: Support.now) == nil)
        let jar = try Support.jar([line], from: "http://h.test/")
        #expect(jar.count == 0)
    }

    @Test func aTabInsideAValueIsKept() {
        #expect(SetCookieParser.parse("a=b\tc", now: Support.now)?.value == "b\tc")
    }

    @Test func extremeNumbersStayInRange() throws {
        let jar = try Support.jar([
            "a=1; Max-Age=99999999999999999999999999999999", "b=2; Max-Age=-99999999999999999999999",
            "c=3; Expires=31 Dec 9999 23:59:59 GMT", "d=4; Max-Age=9223372036854775807",
        ], from: "http://h.test/")
        #expect(jar.allCookies.map(\.name) == ["a", "c", "d"])
        #expect(jar.allCookies.allSatisfy { $0.expires == .distantFuture })
        let file = CookieFileTests.temporaryFile("far.txt")
        defer { try? FileManager.default.removeItem(at: file) }
        try jar.write(to: file, now: Support.now)
        let copy = try CookieJar(contentsOf: file, now: Support.now)
        #expect(copy.allCookies.map(\.name) == ["a", "c", "d"])
        let huge = try CookieFileTests.write("h.test\tFALSE\t/\tFALSE\t999999999999999999999999\tn\tv\n", "huge-expiry.txt")
        defer { try? FileManager.default.removeItem(at: huge) }
        #expect(try CookieJar(contentsOf: huge, now: Support.now).allCookies.first?.expires == .distantFuture)
    }

    @Test func aHundredThousandSetCookieFieldsKeepFifty() async throws {
        // Apart from the tests that measure memory: this one allocates a lot at once; and off the
        // cooperative pool: it computes for seconds.
        let (kept, manyHostsCount, domainWideCount) = try await MemoryHeavy.exclusive {
            try await onThreadOfItsOwn {
                let fields = (0..<100_000).map { "n\($0)=\($0); Path=/p\($0 % 7)" }
                let jar = try Support.jar(fields, from: "http://h.test/")
                let manyHosts = CookieJar()
                for host in 0..<2_000 {
                    manyHosts.store(setCookieFields: ["a=1", "b=2; Domain=test"], from: try Support.url("http://h\(host).test/"), now: Support.now)
                }
                let domainWide = try Support.jar((0..<5_000).map { "d\($0)=1; Domain=example.com" }, from: "http://a.b.c.example.com/")
                return (jar.allCookies.map(\.name), manyHosts.count, domainWide.count)
            }
        }
        #expect(kept.count == 50)
        #expect(kept.contains("n99999"))
        #expect(manyHostsCount == 2_000)
        #expect(domainWideCount == 50)
    }

    @Test func aFileOfTwoHundredThousandLinesStaysWithinTheLimits() async throws {
        // Apart from the tests that measure memory, and off the cooperative pool (as above).
        let file = try await MemoryHeavy.exclusive {
            try await onThreadOfItsOwn {
                var text = "# Netscape HTTP Cookie File\n"
                for index in 0..<200_000 {
                    text += "h\(index % 5_000).test\tFALSE\t/\tFALSE\t0\tn\(index)\tv\n"
                }
                return try CookieFileTests.write(text, "many.txt")
            }
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let (report, count) = try await MemoryHeavy.exclusive {
            try await onThreadOfItsOwn {
                let jar = CookieJar()
                return (try jar.load(from: file, now: Support.now), jar.count)
            }
        }
        #expect(report.loaded == 200_000 && report.malformed == 0)
        #expect(count == 3000)
    }

    @Test func urlsWithoutAHostAndOddHostsAreHarmless() throws {
        let jar = CookieJar()
        for text in ["file:///etc/passwd", "mailto:a@b.c", "http://h.test./", "http://[::1]/", "http://999.1.1.1/"] {
            let url = try Support.url(text)
            jar.store(setCookieFields: ["a=1", "b=2; Domain=.", "c=3; Domain=..", "d=4; Domain=1.1.1"], from: url, now: Support.now)
            _ = jar.cookieHeader(for: url, now: Support.now)
        }
        // a and b (an empty Domain is none) are host-only; c and d are refused.
        #expect(jar.allCookies.map(\.domain).sorted() == ["999.1.1.1", "999.1.1.1", "::1", "::1", "h.test.", "h.test."])
    }

    @Test func manyThreadsAtOnceKeepTheJarConsistent() async throws {
        let jar = CookieJar(maxCookiesPerDomain: 20, maxCookies: 100)
        let url = try Support.url("http://h.test/")
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<300 {
                        jar.store(setCookieFields: ["w\(worker)r\(round % 40)=\(round)"], from: url)
                        _ = jar.cookieHeader(for: url)
                        if round % 50 == 0 { jar.remove(expiredBefore: Date()) }
                    }
                }
            }
        }
        #expect(jar.count == 20 && jar.allCookies.count == 20)
    }
}
