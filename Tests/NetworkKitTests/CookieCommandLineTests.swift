import Foundation
import FixtureServer
import Testing

/// curl's cookie flags on `nk get`: `-c` writes the jar at the end, `-b FILE` starts from it,
/// `-b 'name=value'` sends those cookies.
@Suite("nk and cookies")
struct CookieCommandLineTests {
    @Test("a login saved with -c is sent again with -b, on both transports", arguments: ["nio", "urlsession"])
    func loginAndReuse(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nk-cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jar = directory.appendingPathComponent("jar.txt").path
        let base = server.baseURL.absoluteString
        let login = try await CommandLine_.nk(["get", "--transport", transport, "-c", jar, base + "/cookies/login?user=ann&password=secret"])
        #expect(login.status == 0, "\(login.errors)")
        let text = try String(contentsOfFile: jar, encoding: .utf8)
        #expect(text.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ttoken-ann"), "\(text)")
        let again = try await CommandLine_.nk(["get", "--transport", transport, "-b", jar, base + "/cookies/private"])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.contains("\"user\": \"ann\"") || again.output.contains("\"user\":\"ann\""), "\(again.output)")
        let without = try await CommandLine_.nk(["get", "--transport", transport, base + "/cookies/private"])
        #expect(without.status == 1)
        #expect(without.errors.contains("401"))
    }

    @Test("-b with name=value sends those cookies; -c - prints the jar")
    func literalAndStdout() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let run = try await CommandLine_.nk(["get", "-b", "a=1; b=2", "-c", "-", server.baseURL.absoluteString + "/cookies/set?set=c%3D3"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains(#""cookie":"a=1; b=2""#), "\(run.output)")
        #expect(run.output.contains("# Netscape HTTP Cookie File"))
        #expect(run.output.contains("127.0.0.1\tFALSE\t/cookies\tFALSE\t0\tc\t3"), "\(run.output)")
    }
}
