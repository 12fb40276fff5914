import DatadogExample
import Foundation
import NetworkKit
import Testing

/// Datadog's API v2 (a real OpenAPI 3.0 document of 8.9 MB and 1,661 operations): the plugin's
/// Swift compiles, and its requests are built and run against NetworkKit's fixture server.
@Suite struct DatadogTests {
    @Test func requestsAreBuiltFromTheDocument() throws {
        let validate = DatadogApiV2Collection.validate()
        #expect(validate.target == .path("/api/v2/validate") && validate.method == .get)
    }

    @Test func generatedRequestsRunAgainstTheFixtureServer() async throws {
        try await FixtureProcess.withServer { url in
            let service = Service(configuration: ServiceConfiguration(baseURL: url))
            let answer = try await service.send(DatadogApiV2Collection.validate())
            #expect(answer.data.type == .validateV2 && answer.data.attributes.valid)
            #expect(answer.data.attributes.apiKeyScopes == ["remote_config_read"])
        }
    }
}
