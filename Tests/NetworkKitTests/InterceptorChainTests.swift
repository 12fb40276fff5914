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
        func sign(_ request: URLRequest) throws -> URLRequest {
            var signed = request
            let content = String(decoding: request.signingContent, as: UTF8.self)
            signed.setValue(content.replacingOccurrences(of: "\n", with: "|"), forHTTPHeaderField: "X-Signature")
            return signed
        }
    }

    /// Rewrites the request's path in `prepare`, before the environment resolves it.
    struct PathRewrite: RequestInterceptor {
        var from: String
        var to: String
        func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
            if case .path(from) = draft.target { draft.target = .path(to) }
        }
    }

    static func names(_ interceptors: [any RequestInterceptor]) -> [String] {
        interceptors.map { interceptor in
            if let header = interceptor as? HeaderInterceptor { return "header \(header.name)" }
            return String(describing: type(of: interceptor))
        }
    }

    @Test func theConveniencesPutTheirInterceptorsInTheDocumentedOrderWhateverOrderTheyAreSetIn() throws {
        var configuration = ServiceConfiguration()
        configuration.add(HeaderInterceptor(name: "A", value: "1"))
        configuration.signer = EchoSigner()
        configuration.urlFilters = [QueryArgumentsFilter(["v": "2"])]
        configuration.add(HeaderInterceptor(name: "B", value: "1"))
        configuration.commonHeaders = { ["X-Common": "1"] }
        configuration.baseURL = URL(string: "https://api.example.com")
        configuration.commonParameters = { ["lang": "en"] }
        #expect(Self.names(configuration.interceptors) == [
            "EnvironmentInterceptor", "CommonParametersInterceptor", "CommonHeadersInterceptor", "URLFiltersInterceptor",
            "header A", "header B", "SigningInterceptor",
        ])
        #expect(configuration.baseURL?.absoluteString == "https://api.example.com" && configuration.urlFilters.count == 1)
        #expect(configuration.environmentName == "default" && configuration.signer is EchoSigner)
        // The chain requests run through is the list, made once per change.
        #expect(Self.names(configuration.chain.interceptors) == Self.names(configuration.interceptors))
        #expect(ServiceConfiguration(baseURL: URL(string: "https://api.example.com")).chain.interceptors.count == 1)
    }

    @Test func settingAConvenienceAgainReplacesItInPlaceAndNilRemovesIt() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://one.example.com"))
        configuration.interceptors.insert(HeaderInterceptor(name: "First", value: "1"), at: 0)
        configuration.baseURL = URL(string: "https://two.example.com")
        #expect(Self.names(configuration.interceptors) == ["header First", "EnvironmentInterceptor"])
        #expect(configuration.baseURL?.host == "two.example.com")
        configuration.signer = EchoSigner()
        configuration.signer = nil
        configuration.urlFilters = []
        #expect(Self.names(configuration.interceptors) == ["header First", "EnvironmentInterceptor"])
    }

    @Test func assigningAListKeepsTheBuiltInStepsItLeavesOut() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.signer = EchoSigner()
        configuration.interceptors = [HeaderInterceptor(name: "Mine", value: "1")]
        #expect(Self.names(configuration.interceptors) == ["EnvironmentInterceptor", "header Mine", "SigningInterceptor"])
        // A list that names its own built-in of a kind keeps that one, where it put it.
        configuration.interceptors = [EnvironmentInterceptor(ServiceEnvironment(name: "x", baseURL: nil)),
                                      SigningInterceptor(EchoSigner()), HeaderInterceptor(name: "After", value: "1")]
        #expect(Self.names(configuration.interceptors) == ["EnvironmentInterceptor", "SigningInterceptor", "header After"])
        #expect(configuration.environmentName == "x")
    }

    @Test func aRequestsOwnRunBeforeTheServiceSignerAndTheOptOutKeepsTheBuiltIns() {
        var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.signer = EchoSigner()
        configuration.add(HeaderInterceptor(name: "Service", value: "1"))
        let own: [any RequestInterceptor] = [HeaderInterceptor(name: "Request", value: "1")]
        let chain = InterceptorChain(configuration.interceptors).including(own, usesService: true)
        #expect(Self.names(chain.interceptors) == ["EnvironmentInterceptor", "header Service", "header Request", "SigningInterceptor"])
        let alone = InterceptorChain(configuration.interceptors).including(own, usesService: false)
        #expect(Self.names(alone.interceptors) == ["EnvironmentInterceptor", "header Request", "SigningInterceptor"])
    }

    @Test func parameterRulesAreTheRequestsLastInterceptorAndSurviveAnAssignedList() {
        let request = Request(path: "/orders", method: .post, parameters: ["sku": "A-1"])
        request.parameterRules = [.required("sku")]
        request.interceptors = [HeaderInterceptor(name: "Mine", value: "1")]
        #expect(Self.names(request.interceptors) == ["header Mine", "ParameterRulesInterceptor"])
        #expect(request.parameterRules.map(\.name) == ["sku"])
        request.parameterRules = []
        #expect(Self.names(request.interceptors) == ["header Mine"])
    }

    /// What the server receives after every step, on a real transfer.
    @Test func aRealServerSeesEveryStepInOrder() async throws {
        let server = try await FixtureServer.start()
        defer { server.stop() }
        var configuration = ServiceConfiguration(baseURL: server.baseURL, callbackQueue: DispatchQueue(label: "chain"))
        configuration.commonParameters = { ["lang": "en", "page": 9] }
        configuration.commonHeaders = { ["X-Common": "service", "x-own": "service"] }
        configuration.urlFilters = [QueryArgumentsFilter(["platform": "linux"])]
        configuration.signer = EchoSigner()
        configuration.interceptors.insert(PathRewrite(from: "/nowhere", to: "/echo"), at: 0)
        let service = Service(configuration: configuration)

        let request = Request(path: "/nowhere", parameters: ["page": 2], headers: ["X-Own": "request"], parser: JSONParser())
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
        let service = Service(configuration: ServiceConfiguration(baseURL: server.baseURL,
                                                                  callbackQueue: DispatchQueue(label: "targets")))
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
        let noBase = Service(configuration: ServiceConfiguration(callbackQueue: DispatchQueue(label: "no-base")))
        let result = await noBase.result(of: Request(path: "/echo"))
        guard case .failure(.invalidURL(let reason)) = result else { Issue.record("got \(result)"); return }
        #expect(reason == "\"/echo\" is a path and the service has no base URL")
    }
}
