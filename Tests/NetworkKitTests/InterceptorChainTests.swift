import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FixtureServer
@testable import NetworkKit
import Testing

/// The one chain before sending: where the conveniences put their interceptors, how a request's
/// own join it, and what a real server receives after every step.
@Suite("One chain before sending")
struct InterceptorChainTests {
    /// Signs `METHOD|path?query|` into `X-Signature`, so the server shows what was signed.
    struct EchoSigner: RequestSigning {
        func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
            var signed = request
            let content = String(decoding: try request.signingContent(), as: UTF8.self)
            signed.head.headerFields[HTTPField.Name("X-Signature")!] = content.replacingOccurrences(of: "\n", with: "|")
            return signed
        }
    }

    /// Rewrites the request's path in `prepare`, before the environment resolves it.
    struct PathRewrite: RequestInterceptor {
        var from: String
        var to: String
        /// Sees the URL the environment resolved the path to, as every interceptor of yours does.
        func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
            guard case .url(let url) = draft.target, url.path == from,
                  var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
            parts.path = to
            if let moved = parts.url { draft.target = .url(moved) }
        }
    }

    static func names(_ interceptors: [any RequestInterceptor]) -> [String] {
        interceptors.map { interceptor in
            if let header = interceptor as? HeaderInterceptor { return "header \(header.name)" }
            return String(describing: type(of: interceptor))
        }
    }

    @Test func theServicesStepsRunInTheDocumentedOrderWhateverOrderTheyAreSetIn() throws {
        var configuration = ServiceConfiguration()
        configuration.interceptors.append(HeaderInterceptor(name: "A", value: "1"))
        configuration.signer = EchoSigner()
        configuration.urlFilters = [QueryArgumentsFilter(["v": "2"])]
        configuration.interceptors.append(HeaderInterceptor(name: "B", value: "1"))
        configuration.commonHeaderFields = { [HTTPField.Name("X-Common")!: "1"] }
        configuration.baseURL = URL(string: "https://api.example.com")
        configuration.commonParameters = { ["lang": "en"] }
        // The list holds your interceptors alone; the chain puts the service's built-in ones around them.
        #expect(Self.names(configuration.interceptors) == ["header A", "header B"])
        #expect(Self.names(configuration.chain.interceptors) == [
            "EnvironmentInterceptor", "CommonParametersInterceptor", "CommonHeaderFieldsInterceptor", "URLFiltersInterceptor",
            "header A", "header B", "SigningInterceptor",
        ])
        #expect(configuration.baseURL?.absoluteString == "https://api.example.com" && configuration.urlFilters.count == 1)
        #expect(configuration.environmentName == "default" && configuration.signer is EchoSigner)
        #expect(ServiceConfiguration(baseURL: URL(string: "https://api.example.com")).chain.interceptors.count == 1)
    }

    @Test func settingAStepAgainReplacesItAndNilRemovesIt() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://one.example.com"))
        configuration.interceptors.insert(HeaderInterceptor(name: "First", value: "1"), at: 0)
        configuration.baseURL = URL(string: "https://two.example.com")
        #expect(Self.names(configuration.chain.interceptors) == ["EnvironmentInterceptor", "header First"])
        #expect(configuration.baseURL?.host == "two.example.com")
        configuration.signer = EchoSigner()
        configuration.signer = nil
        configuration.urlFilters = []
        #expect(Self.names(configuration.chain.interceptors) == ["EnvironmentInterceptor", "header First"])
    }

    @Test func assigningTheListReplacesYourInterceptorsAndKeepsTheServicesSteps() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.signer = EchoSigner()
        configuration.interceptors = [HeaderInterceptor(name: "Mine", value: "1")]
        configuration.interceptors = [HeaderInterceptor(name: "Other", value: "1"), HeaderInterceptor(name: "Last", value: "1")]
        #expect(Self.names(configuration.interceptors) == ["header Other", "header Last"])
        #expect(Self.names(configuration.chain.interceptors) == ["EnvironmentInterceptor", "header Other", "header Last",
                                                                 "SigningInterceptor"])
        configuration.interceptors = []
        #expect(Self.names(configuration.chain.interceptors) == ["EnvironmentInterceptor", "SigningInterceptor"])
    }

    @Test func aRequestsOwnRunBeforeTheServiceSignerAndTheOptOutKeepsTheBuiltIns() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.signer = EchoSigner()
        configuration.interceptors.append(HeaderInterceptor(name: "Service", value: "1"))
        let own: [any RequestInterceptor] = [HeaderInterceptor(name: "Request", value: "1")]
        let chain = configuration.chain.including(own, usesService: true)
        #expect(Self.names(chain.interceptors) == ["EnvironmentInterceptor", "header Service", "header Request", "SigningInterceptor"])
        let alone = configuration.chain.including(own, usesService: false)
        #expect(Self.names(alone.interceptors) == ["EnvironmentInterceptor", "header Request", "SigningInterceptor"])
    }

    @Test func parameterRulesRunAfterTheRequestsOwnAndSurviveAnAssignedList() {
        let request = Request(path: "/orders", method: .post, parameters: ["sku": "A-1"])
        request.parameterRules = [.required("sku")]
        request.interceptors = [HeaderInterceptor(name: "Mine", value: "1")]
        #expect(Self.names(request.interceptors) == ["header Mine"])
        #expect(Self.names(request.options.interceptors) == ["header Mine", "ParameterRulesInterceptor"])
        #expect(request.parameterRules.map(\.name) == ["sku"])
        request.parameterRules = []
        #expect(Self.names(request.options.interceptors) == ["header Mine"])
    }

    /// What the server receives after every step, on a real transfer.
    @Test func aRealServerSeesEveryStepInOrder() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL)
        configuration.commonParameters = { ["lang": "en", "page": 9] }
        configuration.commonHeaderFields = { [HTTPField.Name("X-Common")!: "service", HTTPField.Name("x-own")!: "service"] }
        configuration.urlFilters = [QueryArgumentsFilter(["platform": "linux"])]
        configuration.signer = EchoSigner()
        configuration.interceptors.append(PathRewrite(from: "/nowhere", to: "/echo"))
        let service = Service(configuration: configuration)

        let request = Request(path: "/nowhere", parameters: ["page": 2], headerFields: [HTTPField.Name("X-Own")!: "request"], parser: JSONParser())
        request.interceptors = [HeaderInterceptor(name: "X-Request", value: "1")]
        let echo = try await service.send(request)
        #expect(echo["path"] == "/echo")
        #expect(echo["query"] == "lang=en&page=2&platform=linux")
        #expect(echo["headers"]?["X-Common"] == "service" && echo["headers"]?["X-Own"] == "request")
        #expect(echo["headers"]?["X-Request"] == "1")
        #expect(echo["headers"]?["X-Signature"] == "GET|/echo?lang=en&page=2&platform=linux|")

        let alone = Request(path: "/echo", parser: JSONParser())
        alone.usesServiceInterceptors = false
        let echoed = try await service.send(alone)
        #expect(echoed["headers"]?["X-Common"] == "service")
        #expect(echoed["headers"]?["X-Signature"] == "GET|/echo?lang=en&page=9&platform=linux|")
    }

    @Test func aTargetThatIsNotWhatItSaysFailsBeforeAnythingIsSent() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL))
        let cases: [(Request<Data>, String)] = [
            (Request(url: "/echo"), "is not an absolute URL"),
            (Request(path: server.url("/echo")), "is not a path on"),
            (Request(url: "http://[::1"), "is not a path on"),
        ]
        for (request, words) in cases {
            let result = await service.result(of: request)
            guard case .failure(.invalidURL(let reason)) = result else {
                Issue.record("\(request.target): expected invalidURL, got \(result)")
                continue
            }
            #expect(reason.contains(words), "\(request.target): \(reason)")
        }
        #expect(server.hits.count("echo") == 0)
        let noBase = Service(configuration: ServiceConfiguration())
        let result = await noBase.result(of: Request(path: "/echo"))
        guard case .failure(.invalidURL(let reason)) = result else { Issue.record("got \(result)"); return }
        #expect(reason == "\"/echo\" is a path and the service has no base URL")
    }
}
