import Foundation
import FixtureOpenAPIClient
import NetworkKit
import NetworkKitOpenAPIRuntime
import NetworkKitTesting
import OpenAPIRuntime

// MARK: - Calling an OpenAPI Service with a Generated Client

func generatedClient(api: NetworkKit.Service) async throws {
    let client = Client(serverURL: try Servers.Server1.url(),
                        transport: ServiceClientTransport(service: api))
    let small = try await client.getSmall().ok.body.json
    print(small.content.name)
}

func generatedClientPrepared(api: NetworkKit.Service) throws -> Client {
    let transport = ServiceClientTransport(service: api, prepare: { request, operationID in
        if operationID == "getCached" { request.cache = CachePolicy(lifetime: .seconds(300)) }
        request.timeout = .seconds(10)
    })
    return Client(serverURL: try Servers.Server1.url(), transport: transport)
}

func generatedClientStatuses(client: Client) async throws {
    switch try await client.getStatus(path: .init(code: 404)) {
    case .notFound(let notFound):
        print("not found:", try notFound.body.json.error)
    case .undocumented(let status, _):
        print("undocumented status", status)
    }
}

func generatedClientEvents(client: Client) async throws {
    let events = try await client.getEvents(query: .init(count: 3)).ok.body.textEventStream
    for try await event in events.asDecodedServerSentEvents() {
        print(event.id ?? "", event.data ?? "")
    }
}

func generatedClientErrors(client: Client) async {
    do {
        _ = try await client.getSmall()
    } catch let error as ClientError {
        if let failure = error.underlyingError as? NetworkError, failure.isTimeout {
            print("\(error.operationID) timed out")
        }
    } catch {
        print(error)
    }
}

func generatedClientStub() async throws {
    let stub = StubTransport()
    stub.answer(.get, .path("/json/small"), with: .json(#"{"code": 0, "content": {"id": 7, "name": "stubbed"}}"#))
    let api = NetworkKit.Service(configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com")),
                                 transport: stub)
    let client = Client(serverURL: try Servers.Server1.url(), transport: ServiceClientTransport(service: api))
    let small = try await client.getSmall().ok.body.json
    print(small.content.name)   // "stubbed"
}
