import Foundation
@testable import NetworkKit
import Testing

@Suite("Proxy settings: curl's syntax and environment rules")
struct ProxySettingsTests {
    @Test("--proxy text", arguments: [
        ("proxy.corp:3128", "http://proxy.corp:3128", nil),
        ("proxy.corp", "http://proxy.corp:1080", nil),
        ("http://ann:p%40ss@proxy.corp:8080", "http://proxy.corp:8080", "ann:p@ss"),
        ("socks5h://10.0.0.1", "socks5://10.0.0.1:1080", nil),
        ("socks5://[::1]:9050", "socks5://[::1]:9050", nil),
    ] as [(String, String, String?)])
    func parse(text: String, expected: String, credentials: String?) throws {
        let server = try ProxyServer(text)
        #expect(server.description == expected)
        #expect(server.credentials.map { "\($0.user):\($0.password)" } == credentials)
    }

    @Test("unsupported schemes and missing hosts are refused without showing the password",
          arguments: ["https://ann:secret@proxy:443", "socks4://proxy", "ftp://proxy", "http://"])
    func refuse(text: String) {
        #expect {
            _ = try ProxyServer(text)
        } throws: { error in
            "\(error)".contains("secret") == false
        }
    }

    @Test("credentials never show their password")
    func redaction() throws {
        let server = try ProxyServer("http://ann:secret@proxy:3128")
        #expect(!"\(server) \(String(describing: server.credentials))".contains("secret"))
    }

    @Test("no_proxy matching", arguments: [
        ("example.com", "example.com", true), ("example.com", "api.example.com", true),
        (".example.com", "example.com", true), (".example.com", "a.b.example.com", true),
        ("example.com", "badexample.com", false), ("EXAMPLE.com", "Api.Example.COM.", true),
        ("*", "anything.at.all", true), ("*,other", "anything", false),
        ("localhost", "127.0.0.1", false), ("127.0.0.1", "127.0.0.1", true),
        ("10.0.0.0/8", "10.20.30.40", true), ("10.0.0.0/8", "11.0.0.1", false),
        ("192.168.1.0/24", "192.168.1.255", true), ("192.168.1.0/33", "192.168.1.1", false),
        ("fd00::/8", "[fd12::1]", true), ("::1", "::1", true), ("a.com b.com,c.com", "b.com", true),
        ("", "example.com", false), ("com", "example.com", true),
    ] as [(String, String, Bool)])
    func bypass(list: String, host: String, expected: Bool) {
        #expect(ProxyBypass(list).matches(host: host) == expected)
    }

    @Test("the environment, by curl's rules")
    func environment() throws {
        let settings = try ProxySettings.environment([
            "HTTP_PROXY": "http://ignored:1", "https_proxy": "secure:3128", "HTTPS_PROXY": "ignored:2",
            "ALL_PROXY": "all:1080", "NO_PROXY": "localhost,.internal",
        ])
        #expect(settings.http?.description == "http://all:1080")  // HTTP_PROXY is not read
        #expect(settings.https?.description == "http://secure:3128")
        #expect(settings.bypass.matches(host: "db.internal"))
        let url = try #require(URL(string: "https://db.internal/x"))
        #expect(settings.proxy(for: url) == nil)
        let other = try #require(URL(string: "https://example.com/x"))
        #expect(settings.proxy(for: other)?.host == "secure")
    }

    @Test("lower case wins, empty counts as unset, and nothing means no proxy")
    func environmentPrecedence() throws {
        let settings = try ProxySettings.environment(["http_proxy": "lower:1", "all_proxy": " ", "no_proxy": "a", "NO_PROXY": "b"])
        #expect(settings.http?.host == "lower")
        #expect(settings.https == nil)
        #expect(settings.bypass.entries == ["a"])
        #expect(try ProxySettings.environment([:]).isNone)
    }

    @Test("a proxy variable that cannot be read is an error naming it")
    func environmentError() {
        #expect {
            _ = try ProxySettings.environment(["https_proxy": "https://proxy:443"])
        } throws: { error in
            "\(error)".contains("https_proxy")
        }
    }
}
