import Foundation
import FixtureServer
@testable import NetworkKit
import NetworkKitNIO
import NetworkKitTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sessions recorded as HAR 1.2 by a `RecordingTransport` around each real transport, against the
/// fixture server, then replayed by `StubTransport(har:)`; a HAR written elsewhere replays too.
@Suite("Recorded sessions (HAR)")
struct HARTests {
    /// A temporary file for a HAR, removed by `body`'s end.
    static func withHARFile(_ body: (URL) async throws -> Void) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try await body(file)
    }

    static func configuration(_ baseURL: URL? = nil) -> ServiceConfiguration {
        ServiceConfiguration(baseURL: baseURL, timeout: .seconds(15))
    }

    @Test(arguments: TransportKind.allCases)
    func aSessionIsRecordedAndReplays(_ transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let pixels = Data((0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.publish(pixels, as: "blob", contentType: "application/octet-stream")
        let base: any Transport = switch transport {
        case .urlSession: URLSessionTransport()
        case .nio: NIOTransport()
        }
        let recorder = HARRecorder()
        let service = Service(configuration: Self.configuration(server.baseURL),
                              transport: RecordingTransport(wrapping: base, recorder: recorder))
        let small = Request(path: "/json/small", headerFields: [.authorization: "Bearer s3cret"], parser: JSONParser())
        let json = try await service.send(small)
        let compressed = try await service.send(Request(path: "/compressed/gzip", parameters: ["count": 3], parser: JSONParser()))
        let form = Request(path: "/echo", method: .post, parameters: ["user": "ann", "password": "hunter2"], parser: JSONParser())
        _ = try await service.send(form)
        let blob = try await service.send(Request(path: "/images/drip/blob"))
        let missing = await service.completion(of: Request(path: "/status/404"))
        #expect(recorder.count == 5)

        try await Self.withHARFile { file in
            try recorder.write(to: file)
            let archive = try HARArchive.read(from: file)
            #expect(archive.log.version == "1.2")
            let entries = archive.log.entries
            #expect(entries.map(\.request.method) == ["GET", "GET", "POST", "GET", "GET"])
            #expect(entries.map(\.response.status) == [200, 200, 200, 200, 404])
            let first = try #require(entries.first)
            #expect(first.request.headers?.first { $0.name == "Authorization" }?.value == "<redacted>")
            #expect(first.response.content?.mimeType?.hasPrefix("application/json") == true)
            #expect(first.response.content?.text.map { Data($0.utf8) }.flatMap { try? JSON(data: $0) } == json)
            #expect((first.timings?.wait ?? -1) >= 0 && (first.timings?.receive ?? -1) >= 0)
            #expect(first.startedDateTime?.contains("T") == true)
            // The gzip body is recorded decoded, whichever side inflated it.
            let gzip = entries[1].response.content
            #expect(gzip?.text.map { Data($0.utf8) }.flatMap { try? JSON(data: $0) } == compressed)
            #expect(entries[2].request.postData?.text?.contains("password=<redacted>") == true)
            #expect(entries[2].request.postData?.text?.contains("user=ann") == true)
            #expect(entries[3].response.content?.encoding == "base64")
            #expect(entries[3].response.content?.text.flatMap { Data(base64Encoded: $0) } == pixels)

            // The file replays: the same answers without the server.
            let replayed = Service(configuration: Self.configuration(server.baseURL), transport: try StubTransport(har: file))
            #expect(try await replayed.send(small) == json)
            #expect(try await replayed.send(Request(path: "/compressed/gzip", parameters: ["count": 3], parser: JSONParser())) == compressed)
            #expect(try await replayed.send(Request(path: "/images/drip/blob")) == blob)
            guard case .failure(.httpStatus(404, _, _)) = await replayed.completion(of: Request(path: "/status/404")),
                  case .failure(.httpStatus(404, _, _)) = missing else {
                Issue.record("the 404 did not replay as a 404")
                return
            }
            let unrecorded = await replayed.completion(of: Request(path: "/json/feed"))
            guard case .failure(let error) = unrecorded, let unmatched = UnmatchedRequest(error) else {
                Issue.record("an unrecorded request did not fail as unmatched: \(unrecorded)")
                return
            }
            #expect(unmatched.description.contains("/json/feed"))
            #expect(unmatched.description.contains(file.lastPathComponent))
        }
    }

    /// The HAR 1.2 schema (`Peers/har-1.2.schema.json`, written from the specification) checked
    /// by Python's `jsonschema`: nil when `file` is valid, else the validator's words.
    static func schemaErrors(_ file: URL) async throws -> String? {
        let python = try #require(PythonPeer.python)
        let schema = PeerTools.script("har-1.2.schema.json")
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft7Validator.check_schema(schema)
            errors = list(jsonschema.Draft7Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
            print("; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]))
            sys.exit(1 if errors else 0)
            """, schema.path, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try launch(process)   // one launch at a time: concurrent Process.run() crashes Foundation on Linux
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : text
    }

    @Test(.enabled(if: PythonPeer.python != nil, "Python's jsonschema is not in .build/peers/venv: run scripts/bootstrap test"),
          arguments: TransportKind.allCases)
    func whatTheKitWritesIsValidHAR(_ transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let recorder = HARRecorder()
        let base: any Transport = transport == .nio ? NIOTransport() : URLSessionTransport()
        let service = Service(configuration: Self.configuration(server.baseURL),
                              transport: RecordingTransport(wrapping: base, recorder: recorder))
        _ = try await service.send(Request(path: "/json/small", parameters: ["token": "abc"], parser: JSONParser()))
        _ = try await service.send(Request(path: "/echo", method: .post, parameters: ["password": "x"], parser: JSONParser()))
        _ = try await service.send(Request(path: "/compressed/deflate", parser: JSONParser()))
        _ = await service.completion(of: Request(path: "/status/503"))
        _ = await service.completion(of: Request(.url(try #require(URL(string: "http://127.0.0.1:9/"))), parser: DataParser()))
        try await Self.withHARFile { file in
            try recorder.write(to: file)
            let errors = try await Self.schemaErrors(file)
            #expect(errors == nil, "\(errors ?? "")")
            // The check checks: an entry without its cache and timings is refused.
            var broken = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            var log = broken?["log"] as? [String: Any]
            var entries = log?["entries"] as? [[String: Any]] ?? []
            entries[0]["cache"] = nil
            entries[0]["timings"] = nil
            log?["entries"] = entries
            broken?["log"] = log
            try JSONSerialization.data(withJSONObject: broken ?? [:]).write(to: file)
            #expect(try await Self.schemaErrors(file)?.contains("'cache' is a required property") == true)
        }
    }

    @Test func aFailedExchangeIsRecordedWithoutAResponse() async throws {
        let closed = try await ForwardProxy.start()   // a port that was just free, and is again
        await closed.stopAndWait()
        let recorder = HARRecorder()
        let service = Service(configuration: Self.configuration(),
                              transport: RecordingTransport(wrapping: NIOTransport(), recorder: recorder))
        let url = try #require(URL(string: "http://127.0.0.1:\(closed.port)/nothing?token=abc"))
        _ = await service.completion(of: Request(.url(url), parser: DataParser()))
        try await Self.withHARFile { file in
            try recorder.write(to: file)
            let entry = try #require(try HARArchive.read(from: file).log.entries.first)
            #expect(entry.response.status == 0)
            #expect(entry.error?.isEmpty == false)
            #expect(entry.request.url.hasSuffix("token=<redacted>"))
            #expect(entry.request.queryString == [HARArchive.NameValue(name: "token", value: "<redacted>")])

            // Replayed, it fails as a lost connection; a redacted value matches any.
            let replayed = Service(configuration: Self.configuration(), transport: try StubTransport(har: file))
            guard case .failure(.transport(let failure)) = await replayed.completion(of: Request(.url(url), parser: DataParser())) else {
                Issue.record("expected a transport failure")
                return
            }
            #expect(failure.code == .networkConnectionLost)
        }
    }

    @Test func appendingKeepsWhatTheFileHeld() async throws {
        try await Self.withHARFile { file in
            let first = HARRecorder(), second = HARRecorder()
            let entry = HAREntryBuilder(redaction: .standard, bodyLimit: 1024).entry(
                request: try OutgoingRequest(url: try #require(URL(string: "https://a.example/one"))), requestBody: nil, startedAt: Date(),
                waited: .milliseconds(3), received: .milliseconds(1),
                head: ResponseHead(url: nil, status: 204, headerFields: [:]), body: Data(), bodyBytes: 0, inflates: false, failure: nil)
            first.add { entry }
            second.add { entry }
            try first.append(to: file)
            try second.append(to: file)
            #expect(try HARArchive.read(from: file).log.entries.count == 2)
            try Data("{\"log\": {}}".utf8).write(to: file)
            #expect(throws: HARFileError.self) { try second.append(to: file) }
            #expect(try String(contentsOf: file, encoding: .utf8) == "{\"log\": {}}")
        }
    }

    /// A HAR as a browser's devtools write it: HTTP/2 pseudo-headers, a body recorded decoded
    /// under its `Content-Encoding`, a redirect, fields the kit does not read.
    static let browserHAR = #"""
    {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [],
      "entries": [
        {"startedDateTime": "2026-11-30T10:00:00.000Z", "time": 20.5, "_priority": "High",
         "request": {"method": "GET", "url": "https://api.example.com/v1/old?lang=en", "httpVersion": "http/2.0",
                     "headers": [{"name": ":authority", "value": "api.example.com"}], "queryString": [], "cookies": [],
                     "headersSize": -1, "bodySize": 0},
         "response": {"status": 301, "statusText": "", "httpVersion": "http/2.0",
                      "headers": [{"name": ":status", "value": "301"}, {"name": "location", "value": "https://api.example.com/v1/items?lang=en"}],
                      "cookies": [], "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "https://api.example.com/v1/items?lang=en",
                      "headersSize": -1, "bodySize": 0},
         "cache": {}, "timings": {"blocked": 1, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 19, "receive": 0.4}},
        {"startedDateTime": "2026-11-30T10:00:00.030Z", "time": 30,
         "request": {"method": "GET", "url": "https://api.example.com/v1/items?lang=en", "httpVersion": "http/2.0",
                     "headers": [], "queryString": [{"name": "lang", "value": "en"}], "cookies": [], "headersSize": -1, "bodySize": 0},
         "response": {"status": 200, "statusText": "", "httpVersion": "http/2.0",
                      "headers": [{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "br"},
                                  {"name": "set-cookie", "value": "a=1"}, {"name": "set-cookie", "value": "b=2"}],
                      "cookies": [], "content": {"size": 29, "mimeType": "application/json", "text": "{\"code\": 0, \"items\": [1, 2]}"},
                      "redirectURL": "", "headersSize": -1, "bodySize": 20, "_transferSize": 120},
         "cache": {}, "timings": {"send": 0, "wait": 28, "receive": 2}}
      ]}}
    """#

    @Test func aBrowsersHARReplays() async throws {
        try await Self.withHARFile { file in
            try Data(Self.browserHAR.utf8).write(to: file)
            let stub = try StubTransport(har: file)
            let service = Service(configuration: Self.configuration(URL(string: "https://api.example.com")), transport: stub)
            let reply = try await service.reply(to: Request(path: "/v1/old", parameters: ["lang": "en"], parser: JSONParser()))
            #expect(reply.value["items"] == [1, 2])
            #expect(reply.head.headerFields[values: .setCookie] == ["a=1", "b=2"])
            #expect(stub.requests.map(\.path) == ["/v1/old", "/v1/items"])
        }
    }

    @Test func aFileThatIsNotHARSaysWhatIsWrong() async throws {
        try await Self.withHARFile { file in
            try Data(#"{"log": {"entries": [{"request": {"url": "https://a.example/"}, "response": {"status": 200}}]}}"#.utf8).write(to: file)
            #expect { try StubTransport(har: file) } throws: { error in
                (error as? HARFileError)?.reason.contains("log.entries[0].request.method is missing") == true
            }
            for text in ["not json", String(repeating: "[", count: 513)] {
                try Data(text.utf8).write(to: file)
                #expect { try StubTransport(har: file) } throws: { error in
                    (error as? HARFileError)?.reason.contains("is not JSON") == true
                }
            }
        }
    }
}

/// `nk get --har`, `nk download --har` and `nk events --har` as a user runs them.
@Suite("nk --har")
struct HARCommandLineTests {
    @Test(arguments: ["nio", "urlsession"])
    func eachCommandAppendsItsExchanges(transport: String) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        try await HARTests.withHARFile { file in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nk-har-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let get = try await CommandLine_.nk(["get", "--transport", transport, "--har", file.path,
                                                 "-H", "Authorization: Bearer s3cret", server.url("/json/small")])
            #expect(get.status == 0, "\(get.errors)")
            let download = try await CommandLine_.nk(["download", "--transport", transport, "--har", file.path,
                                                      "-o", directory.appendingPathComponent("small.json").path, server.url("/json/small")])
            #expect(download.status == 0, "\(download.errors)")
            let events = try await CommandLine_.nk(["events", "--transport", transport, "--no-reconnect", "--har", file.path,
                                                    server.url("/events?count=2")])
            #expect(events.status == 0, "\(events.errors)")
            let entries = try HARArchive.read(from: file).log.entries
            #expect(entries.map(\.response.status) == [200, 200, 200])
            #expect(entries.first?.request.headers?.first { $0.name == "Authorization" }?.value == "<redacted>")
            #expect(entries.last?.response.content?.text?.contains("id: 2") == true)
            #expect(try String(contentsOf: file, encoding: .utf8).contains("s3cret") == false)
        }
    }
}
