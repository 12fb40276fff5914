import Foundation
import Testing
import FixtureServer
@testable import NetworkKit

@Suite("Parsers over real HTTP")
struct ParserTests {
    @Test func rawDataIsTheBodyAsSent() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let data = try await fixture.service.send(Request(path: "/bytes?count=5000"))
        #expect(data == Data(repeating: 0x61, count: 5000))
    }

    @Test func stringUsesTheCharsetOfContentType() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let utf8 = try await fixture.service.send(Request(path: "/text", parser: StringParser()))
        let latin1 = try await fixture.service.send(Request(path: "/text?charset=iso-8859-1", parser: StringParser()))
        #expect(utf8 == "Grüße aus Köln, café")
        #expect(latin1 == utf8)
    }

    @Test func stringRejectsBytesInvalidForTheCharset() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        // Latin-1 bytes under a header that names no charset are read as UTF-8, and fail.
        let withoutCharset = ClosureParser { response in
            try StringParser().parse(Response(url: response.url, status: 200,
                                              headerFields: [.contentType: "text/plain"], data: response.data))
        }
        let error = await fixture.service.completion(of: Request(path: "/text?charset=iso-8859-1", parser: withoutCharset)).failure
        guard case .parse(let parse) = error else { Issue.record("expected parse error, got \(String(describing: error))"); return }
        #expect(parse.reason == "body is not valid utf-8")
    }

    @Test func jsonWholeDocument() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let json = try await fixture.service.send(Request(path: "/json/feed", parser: JSONParser()))
        #expect(json["code"] == 0)
        #expect(json["content"]?["entrance"]?[1]?["name"] == "New arrivals")
    }

    @Test(arguments: [
        ("/json/feed", JSON(0)), ("/json/feed?quoted=1", JSON(0)),
        ("/json/feed", JSON("0")), ("/json/feed?quoted=1", JSON("0")),
    ])
    func codeCheckTreatsNumberAndStringAlike(path: String, okValue: JSON) async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code", okValues: [okValue]), contentKeyPath: "content/entrance")
        let entrance = try await fixture.service.send(Request(path: path, parser: parser))
        #expect(entrance.arrayValue?.count == 2)
    }

    @Test func codeMismatchIsABusinessErrorWithCodeAndMessage() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))
        let result = await fixture.service.completion(of: Request(path: "/json/feed?code=1001&message=token%20expired", parser: parser))
        guard case .businessCode(let code, let message) = result.failure else {
            Issue.record("expected business code error, got \(result)"); return
        }
        #expect(code == 1001)
        #expect(message == "token expired")
        #expect(result.failure?.description == "business code 1001: token expired")
    }

    @Test func keyPathsReachIntoArrays() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = JSONParser(contentKeyPath: "content/entrance/1/name")
        #expect(try await fixture.service.send(Request(path: "/json/feed", parser: parser)) == "New arrivals")
    }

    @Test func missingKeyPathNamesWhereItFailed() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = JSONParser(contentKeyPath: "content/exit/0")
        let result = await fixture.service.completion(of: Request(path: "/json/feed", parser: parser))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.keyPath == "content/exit")
        let outOfRange = await fixture.service.completion(of: Request(path: "/json/feed", parser: JSONParser(contentKeyPath: "content/entrance/9")))
        guard case .parse(let rangeError) = outOfRange.failure else { Issue.record("got \(outOfRange)"); return }
        #expect(rangeError.reason.contains("out of range"))
    }

    @Test func modelThroughTheDefaultCodableConverter() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser([Entrance].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code", okValues: ["0"]),
                                                                    contentKeyPath: "content/entrance"))
        let entrances = try await fixture.service.send(Request(path: "/json/feed", parser: parser))
        #expect(entrances.map(\.name) == ["Spring sale", "New arrivals"])
    }

    @Test func modelDecodedStraightFromTheBody() async throws {
        struct Item: Decodable, Sendable { var id: Int }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let items = try await fixture.service.send(Request(path: "/json/array", parser: ModelParser([Item].self)))
        #expect(items.map(\.id) == [1, 2, 3])
    }

    @Test func modelThroughACustomConverterRegisteredByType() async throws {
        struct Headline: Decodable, Sendable { var text: String }
        let registry = ModelRegistry()
        registry.register(Headline.self) { json in
            guard let name = json["name"]?.stringValue else { throw ParseError(parser: "headline", reason: "no name") }
            return Headline(text: name.uppercased())
        }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser(Headline.self, json: JSONParser(contentKeyPath: "content/entrance/0"), registry: registry)
        #expect(try await fixture.service.send(Request(path: "/json/feed", parser: parser)).text == "SPRING SALE")
    }

    @Test func aModelThatIsNotDecodableByItsRegisteredName() async throws {
        final class Headline: Sendable { let text: String; init(text: String) { self.text = text } }
        let registry = ModelRegistry()
        registry.register(Headline.self, name: "Headline") { json in Headline(text: json["name"]?.stringValue ?? "") }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser(Headline.self, modelName: "Headline", json: JSONParser(contentKeyPath: "content/entrance/0"),
                                 registry: registry)
        #expect(try await fixture.service.send(Request(path: "/json/feed", parser: parser)).text == "Spring sale")
        let wrong = ModelParser(Int.self, modelName: "Headline", json: JSONParser(contentKeyPath: "content/entrance/0"),
                                registry: registry)
        let result = await fixture.service.completion(of: Request(path: "/json/feed", parser: wrong))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.reason.contains("returned Headline, not Int"))
    }

    @Test func modelByRegisteredName() async throws {
        let registry = ModelRegistry()
        registry.register(name: "EntranceCount") { json in json.arrayValue?.count ?? 0 }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser(modelName: "EntranceCount",
                                 json: JSONParser(contentKeyPath: "content/entrance"), registry: registry)
        let value = try await fixture.service.send(Request(path: "/json/feed", parser: parser))
        #expect(value as? Int == 2)
    }

    @Test func unregisteredModelNameIsAClearError() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser(modelName: "Nobody", registry: ModelRegistry())
        let result = await fixture.service.completion(of: Request(path: "/json/feed", parser: parser))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.reason.contains("no converter registered for model name \"Nobody\""))
    }

    @Test func wrongTypesInTheModelSayWhere() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ModelParser([Entrance].self, json: JSONParser(contentKeyPath: "content/entrance"))
        let result = await fixture.service.completion(of: Request(path: "/json/wrong-types", parser: parser))
        guard case .parse(let error) = result.failure else { Issue.record("got \(result)"); return }
        #expect(error.parser == "model")
        #expect(error.reason.contains("0/name"))
    }

    @Test func aParserOfYourOwnInAFewLines() async throws {
        struct ByteSumParser: ResponseParser {
            func parse(_ response: Response) throws -> Int {
                response.data.reduce(0) { $0 + Int($1) }
            }
        }
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        #expect(try await fixture.service.send(Request(path: "/bytes?count=10", parser: ByteSumParser())) == 970)
        let names = JSONParser(contentKeyPath: "content/entrance").map { $0.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [] }
        #expect(try await fixture.service.send(Request(path: "/json/feed", parser: names)) == ["Spring sale", "New arrivals"])
    }

    @Test func parsersRunOffTheMainActorWhereHandlersRun() async throws {
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let parser = ClosureParser { _ in MainQueue.isCurrent }
        let request = Request(path: "/json/small", parser: parser)
        let onMainQueue = Recorder<Bool>()
        let result = await withCheckedContinuation { continuation in
            request.addCompletionHandler { _, result in
                MainActor.assertIsolated("a completion handler ran off the main actor")
                onMainQueue.append(MainQueue.isCurrent)
                continuation.resume(returning: result)
            }
            fixture.service.start(request)
        }
        #expect(result.success == false, "the parser ran on the main queue")
        #expect(onMainQueue.all == [true], "the handler did not run on the main queue")
    }

    /// With handlers (`start`), the pipeline runs on the service's pipeline queue, which targets
    /// the parsing queue. Awaited (`send`), it runs in the awaiting task, and only heavy parsers
    /// (and big bodies) move to the parsing queue.
    @Test func parsersRunOnTheParsingQueueOrInTheAwaitingTask() async throws {
        struct LightProbe: ResponseParser {
            let key: DispatchSpecificKey<String>
            var isLightweight: Bool { true }
            func parse(_ response: Response) throws -> String? { DispatchQueue.getSpecific(key: key) }
        }
        let key = DispatchSpecificKey<String>()
        ParsingQueue.shared.setSpecific(key: key, value: "parsing")
        let fixture = try await Fixture.start()
        defer { fixture.server.stop() }
        let started = await fixture.service.completion(of: Request(path: "/json/small", parser: LightProbe(key: key)))
        let light = try await fixture.service.send(Request(path: "/json/small", parser: LightProbe(key: key)))
        let heavy = try await fixture.service.send(Request(path: "/json/small",
                                                           parser: ClosureParser { _ in DispatchQueue.getSpecific(key: key) }))
        let big = try await fixture.service.send(Request(path: "/bytes?count=200000", parser: LightProbe(key: key)))
        #expect(try started.get() == "parsing")
        #expect(light == nil)
        #expect(heavy == "parsing")
        #expect(big == "parsing")
        #expect(JSONParser().isLightweight && !ClosureParser { _ in 0 }.isLightweight)
    }
}
