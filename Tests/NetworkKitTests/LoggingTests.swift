import Foundation
import Logging
import Testing
import FixtureServer
@testable import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A swift-log handler that keeps every line, for the tests to read.
struct CapturingLogHandler: LogHandler {
    let lines: Protected<[(Logger.Level, String)]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.withLock { $0.append((event.level, event.message.description)) }
    }
}

@Suite("Logging and cURL commands")
struct LoggingTests {
    @Test func oneLinePerRequestAtInfoAndHeadersAtDebugWithSecretsHidden() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let lines = Protected<[(Logger.Level, String)]>([])
        var logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .debug
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.logger = logger
        configuration.redaction = Redaction(headers: Redaction.defaultHeaders.union(["X-Api-Key"]))
        let service = Service(configuration: configuration)
        let request = Request(path: "/echo?token=abc123&page=2", method: .post,
                              parameters: ["password": "hunter2", "name": "ann"],
                              headerFields: [.authorization: "Bearer s3cret", HTTPField.Name("X-Api-Key")!: "k3y", .cookie: "id=c00kie"],
                              parser: JSONParser())
        _ = try await service.send(request)
        let text = lines.snapshot.map(\.1).joined(separator: "\n")
        for secret in ["abc123", "s3cret", "k3y", "c00kie"] {
            #expect(!text.contains(secret), "\(secret) leaked into the log:\n\(text)")
        }
        #expect(text.contains("token=<redacted>") && text.contains("page=2"))
        #expect(text.contains("Authorization: <redacted>") && text.contains("X-Api-Key: <redacted>"))
        let info = lines.snapshot.filter { $0.0 == .info }.map(\.1)
        #expect(info.count == 1)
        #expect(info.first?.contains("POST") == true && info.first?.contains(" 200 in ") == true)

        // At info, headers are not logged at all.
        lines.withLock { $0.removeAll() }
        logger.logLevel = .info
        service.configure { $0.logger = logger }
        _ = try await service.send(Request(path: "/json/small", parser: JSONParser()))
        #expect(lines.snapshot.count == 1)
    }

    @Test func aFailureIsLoggedAsAWarning() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let lines = Protected<[(Logger.Level, String)]>([])
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        var logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .info
        configuration.logger = logger
        _ = await Service(configuration: configuration).result(of: Request(path: "/status/404", parser: JSONParser()))
        #expect(lines.snapshot.map(\.0) == [.warning])
        #expect(lines.snapshot.first?.1.contains("HTTP 404") == true)
    }

    /// The command, run by the real curl, sends what NetworkKit sends: compared through /echo.
    @Test func theCurlCommandSendsWhatTheServiceSends() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.interceptors = [HeaderInterceptor(name: "X-Signed", value: "it's signed")]
        let service = Service(configuration: configuration)
        let request = Request(path: "/echo?q=a%20b", method: .put, parameters: ["text": "don't panic", "n": 42],
                              headerFields: [.authorization: "Bearer s3cret"], parser: JSONParser())
        request.body = .json

        let redacted = try await service.curlCommand(for: request)
        #expect(redacted.contains("Authorization: <redacted>") && !redacted.contains("s3cret"))

        let command = try await service.curlCommand(for: request, redaction: Redaction.none)
        let output = try await toolOutput(["bash", "-c", command + " --silent --show-error"])
        let viaCurl = try JSON(data: Data(output.utf8))
        let viaKit = try await service.send(request)
        for key in ["method", "path", "query", "body"] {
            #expect(viaCurl[key] == viaKit[key], "\(key): curl \(String(describing: viaCurl[key])), kit \(String(describing: viaKit[key]))")
        }
        for header in ["Authorization", "X-Signed", "Content-Type"] {
            #expect(viaCurl["headers"]?[header] == viaKit["headers"]?[header], "\(header)")
        }
        #expect(viaCurl["headers"]?["X-Signed"] == "it's signed")
    }

    @Test func redactionHidesFormFieldsAndQueryValuesByName() {
        let redaction = Redaction(parameters: ["pin"])
        #expect(redaction.form("a=1&PIN=1234&b=") == "a=1&PIN=<redacted>&b=")
        #expect(redaction.url(URL(string: "https://x.example/p?pin=1&q=2")) == "https://x.example/p?pin=<redacted>&q=2")
        #expect(OutgoingRequest.shellQuoted("it's") == #"'it'\''s'"#)
    }
}
