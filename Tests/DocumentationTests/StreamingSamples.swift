import Foundation
import NetworkKit

// MARK: - Streaming

func followTicks(service: Service) async throws {
    let ticks = StreamRequest(path: "/events")
    for try await event in service.stream(ticks) {
        print(event.type, event.id, event.data)
    }
}

func followWithHandlers(service: Service) {
    let ticks = StreamRequest(path: "/events", lastEventID: "41")
    ticks.addItemHandler { _, event in print(event.data) }
    ticks.addCompletionHandler { _, result in
        if case .success(let summary) = result { print(summary.itemCount, summary.lastEventID) }
    }
    service.start(ticks)
}

func tuneReconnection() -> StreamRequest<ServerSentEvent> {
    var policy = StreamReconnection.eventSource
    policy.delay = .seconds(1)
    policy.maxFailedConnects = 10
    return StreamRequest(path: "/notifications", reconnection: policy)
}

struct Order: Codable, Sendable {
    var id: Int
    var total: Double
}

func exportOrders(service: Service) async throws -> [Order] {
    let parser = JSONLinesParser(ModelParser(Order.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")))
    var orders: [Order] = []
    for try await order in service.stream(StreamRequest(path: "/exports/orders.jsonl", parser: parser)) {
        orders.append(order)
    }
    return orders
}

func tailLog(service: Service) async throws {
    let request = StreamRequest(path: "/logs/tail", parser: LineParser(maxLineLength: 64 * 1024),
                                reconnection: .eventSource)
    for try await line in service.stream(request) where line.contains("ERROR") {
        print(line)
    }
}

struct CSVRowParser: StreamParser {
    private var lines = LineParser()

    mutating func begin(_ response: Response) throws {
        try lines.begin(response)
    }

    mutating func parse(_ chunk: Data) throws -> [[String]] {
        try lines.parse(chunk).map(Self.row)
    }

    mutating func finish() throws -> [[String]] {
        try lines.finish().map(Self.row)
    }

    private static func row(_ line: String) -> [String] {
        line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
}

func boundedStream(service: Service) -> ItemStream<String> {
    let request = StreamRequest(path: "/firehose", parser: LineParser(), bufferLimit: 256)
    request.maxResponseBytes = 1 << 30
    request.timeout = .seconds(30)
    return service.stream(request)
}
