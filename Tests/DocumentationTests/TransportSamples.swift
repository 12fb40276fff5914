import Foundation
import NetworkKit
import NetworkKitNIO

// MARK: - Choosing a transport

func sendThroughNIO() async throws -> JSON {
    let service = Service(
        configuration: ServiceConfiguration(baseURL: URL(string: "https://api.example.com/v1")),
        transport: NIOTransport(connectionsPerHost: 16)
    )
    let feed = try await service.send(Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))))
    return feed
}
