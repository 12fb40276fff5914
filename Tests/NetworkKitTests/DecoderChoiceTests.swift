import Foundation
import FixtureServer
@testable import NetworkKit
import Testing

/// An app with two backends that write dates each their own way: each service has its decoder,
/// a parser may have its own, and neither touches the shared registry.
@Suite("JSON decoders per service and per parser")
struct DecoderChoiceTests {
    struct Record: Decodable, Sendable, Equatable {
        var id: Int
        var created: Date
    }

    static let created = Date(timeIntervalSince1970: 1_793_613_600)   // 2026-11-02 10:00:00 UTC
    static let envelope = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")

    static func decoder(_ strategy: JSONDecoder.DateDecodingStrategy) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = strategy
        return decoder
    }

    static func service(_ server: FixtureServer, decoder: JSONDecoder?, transport: TransportKind) -> Service {
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.jsonDecoder = decoder
        return transport.service(configuration)
    }

    @Test("two services, two date styles, both decoded at once", arguments: TransportKind.allCases)
    func eachServiceDecodesWithItsOwn(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let modern = Self.service(server, decoder: Self.decoder(.iso8601), transport: transport)
        let legacy = Self.service(server, decoder: Self.decoder(.secondsSince1970), transport: transport)
        async let iso = modern.send(Request(path: "/dated?style=iso", parser: ModelParser(Record.self, json: Self.envelope)))
        async let seconds = legacy.send(Request(path: "/dated?style=seconds", parser: ModelParser(Record.self, json: Self.envelope)))
        #expect(try await [iso, seconds] == [Record(id: 1, created: Self.created), Record(id: 1, created: Self.created)])

        // The same answer through the other service's decoder fails as a model error, and the
        // shared registry's default (a plain JSONDecoder) was never changed.
        let crossed = await legacy.result(of: Request(path: "/dated?style=iso", parser: ModelParser(Record.self, json: Self.envelope)))
        guard case .failure(.parse(let error)) = crossed else { Issue.record("got \(crossed)"); return }
        #expect(error.kind == .model)
        #expect((ModelRegistry.shared.defaultConverter as? CodableConverter)?.decoder.dateDecodingStrategy.isDeferred == true)
    }

    @Test("a parser's decoder wins over the service's; a type's converter over both", arguments: TransportKind.allCases)
    func theParsersDecoderWins(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let legacy = Self.service(server, decoder: Self.decoder(.secondsSince1970), transport: transport)
        let own = ModelParser(Record.self, json: Self.envelope, decoder: Self.decoder(.iso8601))
        #expect(try await legacy.send(Request(path: "/dated?style=iso", parser: own)) == Record(id: 1, created: Self.created))

        let registry = ModelRegistry()
        registry.register(Record.self) { json in Record(id: Int(json["id"]?.intValue ?? 0) + 100, created: .distantPast) }
        let converted = ModelParser(Record.self, json: Self.envelope, decoder: Self.decoder(.iso8601), registry: registry)
        #expect(try await legacy.send(Request(path: "/dated?style=iso", parser: converted)) == Record(id: 101, created: .distantPast))
    }

    @Test("pages, streamed lines and cached answers use the service's decoder too", arguments: TransportKind.allCases)
    func everyModelParserSeesTheServicesDecoder(transport: TransportKind) async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let legacy = Self.service(server, decoder: Self.decoder(.secondsSince1970), transport: transport)

        let lines = StreamRequest(path: "/dated/lines?style=seconds", parser: JSONLinesParser(ModelParser(Record.self)))
        var streamed: [Record] = []
        for try await record in legacy.stream(lines) { streamed.append(record) }
        #expect(streamed == [Record(id: 1, created: Self.created), Record(id: 1, created: Self.created)])

        let page = try await legacy.send(Request(path: "/dated?style=seconds&list=1",
                                                 parser: PageParser(Record.self, json: Self.envelope, items: "")))
        #expect(page.items == [Record(id: 1, created: Self.created), Record(id: 1, created: Self.created)])

        let cached = Request(path: "/dated?style=seconds", parser: ModelParser(Record.self, json: Self.envelope))
        cached.cache = CachePolicy(lifetime: .seconds(60))
        _ = try await legacy.send(cached)
        let again = Request(path: "/dated?style=seconds", parser: ModelParser(Record.self, json: Self.envelope))
        again.cache = CachePolicy(lifetime: .seconds(60))
        let reply = try await legacy.reply(to: again)
        #expect(reply.metrics.cache == .hit && reply.value == Record(id: 1, created: Self.created))
        #expect(try legacy.cachedValue(for: again)?.value == Record(id: 1, created: Self.created))
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// True for `.deferredToDate`, a plain `JSONDecoder`'s strategy.
    var isDeferred: Bool {
        if case .deferredToDate = self { return true }
        return false
    }
}
