package import NetworkKit
import NetworkKitOpenAPIRuntime

/// The fixture's client, made by swift-openapi-generator's build plugin from openapi.yaml (the
/// document of Sources/FixtureOpenAPIClient, whose committed copy of the generated code
/// `scripts/test-examples` compares with this target's), on a service of the app's.
package func fixtureClient(service: NetworkKit.Service) throws -> Client {
    Client(serverURL: try Servers.Server1.url(), transport: ServiceClientTransport(service: service))
}
