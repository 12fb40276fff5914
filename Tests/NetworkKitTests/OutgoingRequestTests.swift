import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import NetworkKit
import Testing

/// The request as it is sent (`OutgoingRequest`): made from a URL or from Foundation's
/// `URLRequest` at the edge, refusing what cannot be sent with a typed error instead of the trap
/// swift-http-types' `HTTPRequest(url:)` has for a URL without a scheme; and what reaches a real
/// server through each transport.
@Suite("Outgoing requests")
struct OutgoingRequestTests {
    @Test func aURLRequestConvertsAtTheEdge() throws {
        var urlRequest = URLRequest(url: try #require(URL(string: "https://api.example.com/a/b%20c?q=1&r=%2F")))
        urlRequest.httpMethod = "PUT"
        urlRequest.httpBody = Data("body".utf8)
        urlRequest.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("1", forHTTPHeaderField: "X-Custom")
        urlRequest.timeoutInterval = 12
        let request = try OutgoingRequest(urlRequest)
        #expect(request.head.method == .put)
        #expect(request.head.scheme == "https" && request.head.authority == "api.example.com")
        #expect(request.head.path == "/a/b%20c?q=1&r=%2F")
        #expect(request.head.headerFields[.contentType] == "text/plain")
        #expect(request.head.headerFields[HTTPField.Name("x-custom")!] == "1")
        #expect(request.body == .data(Data("body".utf8)))
        #expect(request.timeout == .seconds(12))

        let back = try #require(request.urlRequest)
        #expect(back.url == urlRequest.url && back.httpMethod == "PUT" && back.httpBody == urlRequest.httpBody)
        #expect(back.value(forHTTPHeaderField: "X-Custom") == "1")
    }

    /// The kit splits a URL into the head's fields as swift-http-types does, from one parse.
    @Test(arguments: ["http://h.example", "http://h.example?a=1", "http://h.example/p?q=1#frag",
                      "http://u:p@h.example:8080/x", "https://[::1]:8443/p/", "http://h.example/a%20b/c?d=%2F&e"])
    func theHeadIsSplitAsSwiftHTTPTypesSplitsIt(_ text: String) throws {
        let url = try #require(URL(string: text))
        let ours = try HTTPRequest.target(of: url, method: .get, headerFields: [:]).head
        let theirs = HTTPRequest(url: url)
        #expect(ours.scheme == theirs.scheme && ours.authority == theirs.authority && ours.path == theirs.path)
        #expect(try OutgoingRequest(url: url).url == theirs.url)
    }

    /// What `HTTPRequest(url:)` would trap on, or the kit does not send, is a typed error.
    @Test(arguments: ["file:///etc/hostname", "ftp://example.com/x", "mailto:a@example.com", "https:///nohost"])
    func whatCannotBeSentIsAnInvalidURL(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: NetworkError.self) { try OutgoingRequest(url: url) }
        #expect(throws: NetworkError.self) { try OutgoingRequest(URLRequest(url: url)) }
        var request = try OutgoingRequest(url: try #require(URL(string: "https://api.example.com/")))
        #expect(throws: NetworkError.self) { try request.setURL(url) }
        #expect(request.url?.absoluteString == "https://api.example.com/")
    }

    @Test func aRelativeURLIsAnInvalidURL() throws {
        let relative = try #require(URL(string: "/just/a/path"))
        do {
            _ = try OutgoingRequest(url: relative)
            Issue.record("a relative URL was accepted")
        } catch {
            guard case .invalidURL = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func aHeaderNameThatIsNoTokenIsAnInvalidRequest() throws {
        var urlRequest = URLRequest(url: try #require(URL(string: "https://api.example.com/")))
        urlRequest.setValue("1", forHTTPHeaderField: "Bad Name")
        do {
            _ = try OutgoingRequest(urlRequest)
            Issue.record("an invalid field name was accepted")
        } catch {
            guard case .invalidRequest(let text) = error else { Issue.record("got \(error)"); return }
            #expect(text.contains("Bad Name"))
        }
    }

    /// A URL's user and password go out as `Authorization: Basic`, never in the target; a
    /// request's own `Authorization` wins.
    @Test func credentialsInTheURLBecomeBasicAuthorization() throws {
        let url = try #require(URL(string: "https://ann:s3c%3Aret@api.example.com/x"))
        let request = try OutgoingRequest(url: url)
        #expect(request.head.authority == "api.example.com")
        #expect(request.head.headerFields[.authorization] == "Basic " + Data("ann:s3c:ret".utf8).base64EncodedString())
        let own = try OutgoingRequest(url: url, headerFields: [.authorization: "Bearer t"])
        #expect(own.head.headerFields[.authorization] == "Bearer t")
    }

    @Test func setURLKeepsTheMethodAndTheFields() throws {
        var request = try OutgoingRequest(method: .post, url: try #require(URL(string: "https://a.example/one")),
                                          headerFields: [.contentType: "application/json"])
        try request.setURL(try #require(URL(string: "http://b.example:8080/two?x=1")))
        #expect(request.head.method == .post && request.head.headerFields[.contentType] == "application/json")
        #expect(request.head.urlString == "http://b.example:8080/two?x=1")
        #expect(request.head.host == "b.example")
    }

    @Test(arguments: [
        ("http://Example.COM:8080/x", "example.com"), ("https://[::1]:443/", "::1"), ("http://127.0.0.1/", "127.0.0.1"),
    ])
    func theHostIsTheAuthorityWithoutPortOrBrackets(_ text: String, host: String) throws {
        #expect(try OutgoingRequest(url: try #require(URL(string: text))).head.host == host)
    }

    /// Repeated fields go out apart, in order, through both transports; the server sees each.
    @Test(arguments: TransportKind.allCases)
    func repeatedFieldsReachTheServer(transport: TransportKind) async throws {
        let fixture = try await Fixture.start(transport: transport)
        defer { fixture.server.stop() }
        let name = try #require(HTTPField.Name("X-Repeated"))
        var fields = HTTPFields()
        fields.append(HTTPField(name: name, value: "one"))
        fields.append(HTTPField(name: name, value: "two"))
        let outgoing = try OutgoingRequest(url: try #require(URL(string: fixture.server.url("/echo"))), headerFields: fields)
        let echo = try await fixture.service.send(Request(outgoing, parser: JSONParser()))
        // HTTP/1.1 lets a server join repeated fields with a comma (RFC 9110 §5.3).
        #expect(echo["headers"]?["X-Repeated"] == "one, two")
    }

    /// A body sent from a file reaches the signer in pieces, whole.
    @Test func signingContentReadsABodyFileInPieces() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("signing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        try body.write(to: file)
        let request = try OutgoingRequest(method: .post, url: try #require(URL(string: "https://api.example.com/up?a=1")),
                                          body: .file(file))
        var pieces = 0
        var content = Data()
        try request.signingContent { content.append($0); pieces += 1 }
        #expect(pieces > 2)
        #expect(content == Data("POST\n/up?a=1\n".utf8) + body)
        #expect(try request.signingContent() == content)
    }
}
