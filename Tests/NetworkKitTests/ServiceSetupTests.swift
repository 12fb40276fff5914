import Crypto
import Foundation
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Signs `METHOD\npath?query\nbody` with HMAC-SHA256 into `X-Signature`.
struct HMACSigner: RequestSigning {
    let key: SymmetricKey

    /// The body hashed a piece at a time, from memory or from disk.
    func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
        var mac = HMAC<SHA256>(key: key)
        try request.signingContent { mac.update(data: $0) }
        var signed = request
        signed.head.headerFields[HTTPField.Name("X-Signature")!] = Self.hex(mac.finalize())
        return signed
    }

    static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String {
        Data(code).map { String(format: "%02x", $0) }.joined()
    }
}

/// What a service set up once adds to its requests (an app's networking middle layer):
/// environments, URL filters, common headers and parameters, signing, parameter rules, JSON
/// shapes, envelope keys, token refresh, reformers, redirects. Everything against real fixture
/// servers.
@Suite("Service setup: environments, filters, signing, rules, token refresh, redirects")
struct ServiceSetupTests {
    static let secret = SymmetricKey(data: Data("fixture-secret".utf8))

    func configuration(_ server: FixtureServer) -> ServiceConfiguration {
        ServiceConfiguration(baseURL: server.baseURL)
    }

    @Test func switchingEnvironmentsLetsRequestsInFlightFinishWhereTheyWent() async throws {
        let production = try await FixtureServer.start()
        let staging = try await FixtureServer.start()
        defer { production.stop(); staging.stop() }
        let service = Service(configuration: ServiceConfiguration(
             environments: [ServiceEnvironment(name: "production", baseURL: production.baseURL),
                           ServiceEnvironment(name: "staging", baseURL: staging.baseURL)]))
        #expect(service.configuration.environment.name == "production")
        let slow = Request(path: "/echo?slow", parser: JSONParser())
        let adapting = DelayingInterceptor(delay: .milliseconds(200))
        slow.interceptors = [adapting]
        async let inFlight = service.send(slow)
        await adapting.started()   // built for production, now being adapted
        #expect(service.useEnvironment(named: "staging"))
        #expect(!service.useEnvironment(named: "nowhere"))
        let next = try await service.send(Request(path: "/echo", parser: JSONParser()))
        #expect(try await inFlight["host"] == .string("127.0.0.1:\(production.port)"))
        #expect(next["host"] == .string("127.0.0.1:\(staging.port)"))
    }

    @Test func queryArgumentsAreAppendedWithAndWithoutAQuery() throws {
        let filter = QueryArgumentsFilter(["v": "2.1", "os": "linux & more"])
        let cases = [
            ("https://a.example/p", "https://a.example/p?os=linux%20%26%20more&v=2.1"),
            ("https://a.example/p?q=1", "https://a.example/p?q=1&os=linux%20%26%20more&v=2.1"),
            ("https://a.example/p?", "https://a.example/p?os=linux%20%26%20more&v=2.1"),
            ("https://a.example/p?v=1#top", "https://a.example/p?v=1&os=linux%20%26%20more#top"),
        ]
        for (input, expected) in cases {
            let url = try #require(URL(string: input))
            #expect(try filter.filter(url, method: .get).absoluteString == expected, "\(input)")
        }
    }

    @Test func commonHeadersAndParametersAreReadAtSendTimeAndTheRequestsOwnWin() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let token = Protected("one")
        var configuration = configuration(server)
        configuration.commonHeaderFields = { [HTTPField.Name("X-Token")!: token.snapshot, HTTPField.Name("X-Client")!: "kit"] }
        configuration.commonParameters = { ["app": "nk", "page": 1] }
        configuration.urlFilters = [QueryArgumentsFilter(["v": "3"])]
        let service = Service(configuration: configuration)
        let first = try await service.send(Request(path: "/echo", parameters: ["page": 2], headerFields: [HTTPField.Name("X-Client")!: "mine"],
                                                   parser: JSONParser()))
        #expect(first["headers"]?["X-Token"] == "one" && first["headers"]?["X-Client"] == "mine")
        #expect(first["query"] == "app=nk&page=2&v=3")
        token.withLock { $0 = "two" }
        let form = try await service.send(Request(path: "/echo", method: .post, parser: JSONParser()))
        #expect(form["headers"]?["X-Token"] == "two")
        #expect(form["body"] == "app=nk&page=1" && form["query"] == "v=3")
    }

    @Test func theServerVerifiesTheSignatureOfWhatWasReallySent() async throws {
        let server = try await FixtureServer.start { content, signature in
            HMACSigner.hex(HMAC<SHA256>.authenticationCode(for: content, using: Self.secret)) == signature
        }
        defer { server.stop() }
        var configuration = configuration(server)
        configuration.signer = HMACSigner(key: Self.secret)
        configuration.commonParameters = { ["ts": 1_700_000_000] }
        configuration.interceptors = [HeaderInterceptor(name: "X-Late", value: "added by an interceptor")]
        let service = Service(configuration: configuration)
        #expect(try await service.send(Request(path: "/signed", parameters: ["q": "a b"], parser: JSONParser()))["verified"] == true)
        #expect(try await service.send(Request(path: "/signed", method: .post, parameters: ["name": "ann"],
                                               parser: JSONParser()))["verified"] == true)

        // A body sent from disk, as sent: compressed.
        let folder = try TestFolder()
        let file = folder.url.appendingPathComponent("signed.txt")
        try Data(String(repeating: "signed from disk ", count: 10_000).utf8).write(to: file)
        let upload = Request(path: "/signed", method: .post, parser: JSONParser())
        upload.body = .file(file, contentType: "text/plain")
        upload.bodyEncoding = .gzip
        #expect(try await service.send(upload)["verified"] == true)

        var wrong = configuration
        wrong.signer = HMACSigner(key: SymmetricKey(data: Data("wrong".utf8)))
        let rejected = await Service(configuration: wrong).result(of: Request(path: "/signed", parser: JSONParser()))
        guard case .failure(.httpStatus(401, _, _)) = rejected else { Issue.record("got \(rejected)"); return }
    }

    @Test func aBrokenParameterRuleSendsNothingAndNamesTheParameter() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = Service(configuration: configuration(server))
        let cases: [([String: JSON], ParameterRule, String)] = [
            ([:], .required("phone"), "phone: is required"),
            (["phone": "12ab"], .matches("phone", #"^[0-9]{6,15}$"#), #"phone: does not match ^[0-9]{6,15}$"#),
            (["age": 200], .range("age", 0...150), "age: must be within 0.0...150.0"),
            (["name": ""], .nonEmpty("name"), "name: must not be empty"),
            (["nick": "x"], .length("nick", 2...12), "nick: must be 2 to 12 characters long"),
        ]
        for (parameters, rule, message) in cases {
            let request = Request(path: "/count/rules", parameters: parameters, parser: JSONParser())
            request.parameterRules = [rule]
            let result = await service.result(of: request)
            #expect(result.failure?.description == "invalid parameter \(message)")
        }
        #expect(server.hits.count("rules") == 0)
        let fine = Request(path: "/count/rules", parameters: ["phone": "5551234"], parser: JSONParser())
        fine.parameterRules = [.required("phone"), .matches("phone", #"^[0-9]{6,15}$"#)]
        #expect(try await service.send(fine)["hit"] == 1)
    }

    @Test func aJSONShapeNamesTheKeyPathThatDoesNotFit() throws {
        let shape: JSONShape = ["nick": .string, "level": .number, "items": [["id": .integer]], "avatar": .optional(.string)]
        try shape.validate(["nick": "ann", "level": 3.5, "items": [["id": 1], ["id": 2.0]]])
        try shape.validate(["nick": "ann", "level": 3, "items": [], "avatar": .null])
        let failures: [(JSON, String)] = [
            (["level": 3, "items": []], "nick: missing"),
            (["nick": 5, "level": 3, "items": []], "nick: expected a string, got number"),
            (["nick": "a", "level": 3, "items": [["id": 1], ["id": "2"]]], "items/1/id: expected an integer, got string"),
            (["nick": "a", "level": 3, "items": .object([:])], "items: expected an array, got object"),
            (["nick": "a", "level": 3, "items": [], "avatar": 1], "avatar: expected a string or null, got number"),
        ]
        for (json, message) in failures {
            #expect(throws: ParseError.self) { try shape.validate(json) }
            do { try shape.validate(json) } catch let error as ParseError {
                #expect(error.reason == "unexpected shape at \(message)")
            }
        }
    }

    @Test func envelopeKeysApplyToEveryJSONAndModelRequestOfTheService() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = configuration(server)
        configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code", messageKeyPaths: ["message"]),
                                                  contentKeyPath: "data")
        let service = Service(configuration: configuration)
        server.publish(Data(#"{"code": 0, "data": {"nick": "ann", "level": 3}}"#.utf8), as: "ok", contentType: "application/json")
        server.publish(Data(#"{"code": 1002, "message": "banned"}"#.utf8), as: "banned", contentType: "application/json")
        struct Profile: Decodable, Sendable { let nick: String; let level: Int }
        #expect(try await service.send(Request(path: "/blob/ok", parser: JSONParser()))["nick"] == "ann")
        #expect(try await service.send(Request(path: "/blob/ok", parser: ModelParser(Profile.self))).level == 3)
        let banned = await service.result(of: Request(path: "/blob/banned", parser: ModelParser(Profile.self)))
        guard case .failure(.businessCode(let code, let message)) = banned else { Issue.record("got \(banned)"); return }
        #expect(code == 1002 && message == "banned")
        var raw = JSONParser()
        raw.usesServiceEnvelope = false
        #expect(try await service.send(Request(path: "/blob/banned", parser: raw))["code"] == 1002)
        let shaped = JSONParser(shape: ["nick": .string, "level": .string])
        let mismatch = await service.result(of: Request(path: "/blob/ok", parser: shaped))
        #expect(mismatch.failure?.description.contains("level: expected a string, got number") == true)
    }

    @Test func twentyConcurrentRequestsWithAnExpiredTokenShareOneRefresh() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let refreshes = Protected(0)
        let tokens = TokenRefresher(token: "stale-token") {
            refreshes.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(100))
            return FixtureServer.freshToken
        }
        var configuration = configuration(server)
        configuration.interceptors = [tokens]
        let service = Service(configuration: configuration)
        let users = try await withThrowingTaskGroup(of: JSON.self) { group in
            for _ in 0..<20 {
                group.addTask { try await service.send(Request(path: "/protected", parser: JSONParser())) }
            }
            return try await group.reduce(into: [JSON]()) { $0.append($1) }
        }
        #expect(users.count == 20 && users.allSatisfy { $0["data"]?["user"] == "ann" })
        #expect(refreshes.snapshot == 1)
        #expect(await tokens.token == FixtureServer.freshToken)
    }

    @Test func anExpiredTokenBusinessCodeAlsoRefreshes() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let tokens = TokenRefresher(token: "stale-token", isExpired: { error in
            if case .businessCode(let code, _) = error { return code == 401001 }
            return false
        }, refresh: { FixtureServer.freshToken })
        var configuration = configuration(server)
        configuration.interceptors = [tokens]
        configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")
        let user = try await Service(configuration: configuration).send(Request(path: "/protected?style=code", parser: JSONParser()))
        #expect(user["user"] == "ann")
    }

    @Test func reformersShapeTheResultOnTheParsingSide() async throws {
        struct Names: Reformer {
            func reform(_ feed: JSON) throws -> [String] { (feed.arrayValue ?? []).compactMap { $0["name"]?.stringValue } }
        }
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance").reformed(by: Names())
        let names = try await Service(configuration: configuration(server)).send(Request(path: "/json/feed", parser: parser))
        #expect(!names.isEmpty)
    }

    @Test(arguments: TransportKind.allCases)
    func redirectsToAnotherHostDropCredentialsAndCanBeRefused(transport: TransportKind) async throws {
        let first = try await FixtureServer.start()
        let other = try await FixtureServer.start()
        defer { first.stop(); other.stop() }
        let service = transport.service(configuration(first))
        let headers: HTTPFields = [.authorization: "Bearer s3cret", .cookie: "id=1", HTTPField.Name("X-Kept")!: "yes"]
        let sameOrigin = first.url("/echo").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let echoed = try await service.send(Request(path: "/redirect?to=\(sameOrigin)", headerFields: headers, parser: JSONParser()))
        #expect(echoed["headers"]?["Authorization"] == "Bearer s3cret")

        let elsewhere = "http://localhost:\(other.port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let moved = try await service.send(Request(path: "/redirect?to=\(elsewhere)", headerFields: headers, parser: JSONParser()))
        #expect(moved["host"] == .string("localhost:\(other.port)"))
        #expect(moved["headers"]?["Authorization"] == nil && moved["headers"]?["Cookie"] == nil)
        #expect(moved["headers"]?["X-Kept"] == "yes")

        let refused = Request(path: "/redirect?to=\(elsewhere)", parser: DataParser())
        refused.redirectPolicy = .refuse
        let result = await service.result(of: refused)
        guard case .failure(.httpStatus(302, _, _)) = result else { Issue.record("got \(result)"); return }

        let rewritten = Request(path: "/redirect?to=\(elsewhere)", parser: JSONParser())
        rewritten.redirectPolicy = .custom { proposed, response in
            var next = proposed
            next.head.headerFields[HTTPField.Name("X-Redirected-From")!] = "\(response.status.code)"
            return next
        }
        #expect(try await service.send(rewritten)["headers"]?["X-Redirected-From"] == "302")
    }
}

/// Waits before letting a request go, to keep it in flight; `started()` returns once it waits.
final class DelayingInterceptor: RequestInterceptor {
    let delay: Duration
    private let (waiting, waitingContinuation) = AsyncStream<Void>.makeStream()

    init(delay: Duration) {
        self.delay = delay
    }

    func started() async {
        for await _ in waiting { return }
    }

    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        waitingContinuation.yield()
        try await Task.sleep(for: delay)
        return request
    }
}
