import Foundation
import NetworkKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: - The request pipeline

extension HTTPField.Name {
    static let appVersion = Self("X-App-Version")!
    static let signature = Self("X-Signature")!
    static let clientID = Self("X-Client-ID")!
    static let token = Self("X-Token")!
    static let maintenance = Self("X-Maintenance")!
}

struct AppVersionHeader: RequestInterceptor {
    func adapt(_ request: OutgoingRequest, context: InterceptorContext) async throws -> OutgoingRequest {
        var request = request
        request.head.headerFields[.appVersion] = "2.1"
        return request
    }
}

final class SlowRequestReporter: EventMonitor {
    func requestDidFinish(_ metrics: RequestMetrics) {
        if metrics.duration > .seconds(1) { print("slow: \(metrics.url?.absoluteString ?? "-")") }
    }
}

func pipelineConfiguration(tokenStore: @escaping @Sendable () -> String) -> Service {
    var configuration = ServiceConfiguration(environments: [
        ServiceEnvironment(name: "production", baseURL: URL(string: "https://api.example.com")),
        ServiceEnvironment(name: "staging", baseURL: URL(string: "https://staging.example.com")),
    ])
    configuration.interceptors = [AppVersionHeader(), RetryPolicy(maxRetries: 2)]
    configuration.eventMonitors = [SlowRequestReporter()]
    configuration.urlFilters = [QueryArgumentsFilter(["platform": "ios", "v": "2.1"])]
    configuration.commonHeaderFields = { [.token: tokenStore()] }   // read for every request
    configuration.commonParameters = { ["lang": "en"] }
    configuration.envelope = ResponseEnvelope(businessCode: BusinessCodeCheck(codeKeyPath: "code", messageKeyPaths: ["message"]),
                                              contentKeyPath: "data")
    let api = Service(configuration: configuration)
    api.useEnvironment(named: "staging")   // requests in flight finish where they went
    return api
}

func pipelinePerRequest() {
    let upload = Request(path: "/orders", method: .post, parameters: ["sku": "A-1"], parser: JSONParser())
    upload.interceptors = [RetryPolicy(maxRetries: 3)]
    upload.isIdempotent = true             // the server dedupes orders: a retried POST is safe
    upload.usesServiceInterceptors = true  // false would leave the service's out
    upload.parameterRules = [.required("sku"), .matches("sku", #"^[A-Z]-[0-9]+$"#)]
    upload.redirectPolicy = .refuse
}

func pipelineTokens(refreshToken: @escaping @Sendable () async throws -> String) -> Service {
    let tokens = TokenRefresher(token: nil) { try await refreshToken() }
    var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    configuration.interceptors = [tokens]
    return Service(configuration: configuration)
}

func pipelineBasicAuthentication(password: String,
                                 storedCredentials: @escaping @Sendable () async throws -> BasicCredentials) -> Request<JSON> {
    var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    configuration.interceptors.append(BasicAuthentication(user: "ann", password: password))
    let report = Request(path: "/reports/today", parser: JSONParser())
    report.interceptors = [BasicAuthentication { try await storedCredentials() }]
    _ = Service(configuration: configuration)
    return report
}

struct EnvironmentKeySigner: RequestSigning {
    func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
        throw NetworkError.invalidRequest("this signer needs the request's environment")
    }

    func sign(_ request: OutgoingRequest, environment: ServiceEnvironment) throws -> OutgoingRequest {
        guard let key = environment["signingKey"] else { throw NetworkError.invalidRequest("no key for \(environment.name)") }
        var signed = request
        signed.head.headerFields[.signature] = signature(of: try request.signingContent(), key: key)
        signed.head.headerFields[.clientID] = environment["clientID"]
        return signed
    }
}

/// A stand-in for an HMAC: the samples only show where the key comes from.
func signature(of content: Data, key: String) -> String {
    "\(content.count)-\(key.count)"
}

func pipelineEnvironmentKeys(productionKey: String, stagingKey: String) -> Service {
    var keyed = ServiceConfiguration(environments: [
        ServiceEnvironment(name: "production", baseURL: URL(string: "https://api.example.com"),
                           values: ["signingKey": productionKey, "clientID": "ios"]),
        ServiceEnvironment(name: "staging", baseURL: URL(string: "https://staging.example.com"),
                           values: ["signingKey": stagingKey, "clientID": "ios-staging"]),
    ])
    keyed.signer = EnvironmentKeySigner()
    return Service(configuration: keyed)
}

struct MaintenanceError: Error {}

func pipelineResponseValidation() -> Service {
    var checked = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    checked.responseValidation = ResponseValidation(
        acceptableContentTypes: ["application/json", "+json"],
        requiredKeyPaths: ["code"],
        businessCode: BusinessCodeCheck(codeKeyPath: "code", okValues: [0, 200], messageKeyPaths: ["msg", "error/message"]),
        rules: [{ response in
            if response.headerFields[.maintenance] != nil { throw MaintenanceError() }
        }]
    )
    return Service(configuration: checked)
}

func pipelinePriority() -> [Request<Data>] {
    var polite = ServiceConfiguration(baseURL: URL(string: "https://images.example.com"))
    polite.maxRequestsInFlight = 6
    polite.maxRequestsInFlightPerHost = 2
    let thumbnail = Request(path: "/thumbs/42.jpg")
    thumbnail.priority = .low
    let avatar = Request(path: "/avatars/7.jpg")
    avatar.priority = .veryHigh
    _ = Service(configuration: polite)
    return [thumbnail, avatar]
}

func parsingBusinessStatus(api: Service) async throws {
    let reply = try await api.reply(to: Request(path: "/profile", parser: JSONParser()))
    if let status = reply.businessStatus {
        print("code \(status.code): \(status.message ?? "no message")")
    }
}

struct HeaderSigner: RequestSigning {
    let sign: @Sendable (Data) -> String
    func sign(_ request: OutgoingRequest) throws -> OutgoingRequest {
        var signed = request
        signed.head.headerFields[.signature] = sign(try request.signingContent())
        return signed
    }
}

func pipelineCurl(api: Service) async throws {
    let request = Request(path: "/feed", parser: JSONParser())
    print(try await api.curlCommand(for: request))                       // secrets hidden
    print(try await api.curlCommand(for: request, redaction: Redaction.none))   // runnable as is
    let reply = try await api.reply(to: request)
    print(reply.status.code, reply.metrics.attempts, reply.metrics.duration)
}

// MARK: - One chain before sending

func chainConfiguration(tokenStore: @escaping @Sendable () -> String, signer: some RequestSigning) -> ServiceConfiguration {
    var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    configuration.commonParameters = { ["lang": "en"] }
    configuration.commonHeaderFields = { [.token: tokenStore()] }
    configuration.urlFilters = [QueryArgumentsFilter(["platform": "ios"])]
    configuration.signer = signer
    configuration.interceptors.append(AppVersionHeader())
    // Sent as: base URL, common parameters, common headers, URL filters, AppVersionHeader, signer.
    return configuration
}

struct VersionedPaths: RequestInterceptor {
    func prepare(_ draft: inout RequestDraft, context: InterceptorContext) throws {
        guard case .url(let url) = draft.target,
              var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return }
        parts.path = "/v2" + parts.path
        if let versioned = parts.url { draft.target = .url(versioned) }
    }
}

func versionedService(signer: some RequestSigning) -> Service {
    var configuration = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    configuration.signer = signer
    configuration.interceptors.append(VersionedPaths())
    return Service(configuration: configuration)
}

func pipelineSkippedSteps() -> Request<JSON> {
    let health = Request(path: "/health", parser: JSONParser())
    health.skippedServiceDefaults = [.commonParameters, .signer, .envelope]
    return health
}
