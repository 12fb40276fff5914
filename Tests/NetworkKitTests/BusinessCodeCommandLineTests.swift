import FixtureServer
import Testing

/// `nk get --code-key` with one `--ok` or several, against the fixture server's feed.
@Suite("nk get's business-code check")
struct BusinessCodeCommandLineTests {
    @Test("nk get --code-key passes a code among its --ok values and fails with the message otherwise")
    func codeAmongTheOKValues() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let seven = server.url("/json/feed?code=7&message=seven")
        let defaultOK = try await CommandLine_.nk(["get", "--code-key", "code", seven])
        #expect(defaultOK.status == 1)
        #expect(defaultOK.errors.contains("seven"), "\(defaultOK.errors)")

        let listed = try await CommandLine_.nk(["get", "--code-key", "code", "--ok", "0", "--ok", "7",
                                                "--key-path", "code", seven])
        #expect(listed.status == 0, "\(listed.errors)")
        #expect(listed.output == "7\n", "\(listed.output)")
    }
}
