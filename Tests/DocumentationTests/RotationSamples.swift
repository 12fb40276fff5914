import Foundation
import NetworkKit
import NetworkKitNIO

// MARK: - HTTP versions and connection rotation

func http1Only() throws -> Service {
    let settings = ConnectionSettings(httpVersions: .http1Only)
    return Service(transport: try NIOTransport(connection: settings))
}

struct VersionMonitor: EventMonitor {
    func request(_ id: RequestID, didReceive head: ResponseHead, attempt: Int) {
        print("\(id): \(head.httpVersion.map(String.init(describing:)) ?? "HTTP") \(head.status.code)")
    }

    func request(_ id: RequestID, willResendUnprocessed attempt: Int, error: NetworkError) {
        print("\(id): attempt \(attempt) was not processed, sent again: \(error)")
    }
}

func placeOrder(_ service: Service, order: Data) async throws(NetworkError) -> Data {
    let request = Request(path: "/orders", method: .post, parser: DataParser())
    request.body = .data(order, contentType: "application/json")
    request.interceptors = [RetryPolicy(maxRetries: 2)]
    do {
        return try await service.send(request)
    } catch let error where error.serverProcessing == .mayHaveProcessed {
        // The connection was lost after the order went out: look it up before placing it again.
        throw error
    }
}

// MARK: - Several HTTP/2 connections per host

func gatewayService(baseURL: URL) -> Service {
    let transport = NIOTransport(http2ConnectionsPerHost: 4)
    return Service(configuration: ServiceConfiguration(baseURL: baseURL), transport: transport)
}
