import FixtureServer
import Foundation
import NetworkKit

/// `nk demo`: an event stream that reconnects where it left off, and JSON Lines into models, both
/// parsed as the bytes arrive.
extension DemoTour {
    var streamSteps: [Step] {
        [
            ("Server-sent events: 6 ticks over 3 connections, each resumed with Last-Event-ID", {
                let name = "demo-\(UUID().uuidString.prefix(8))"
                let policy = StreamReconnection(delay: .milliseconds(50), maxDelay: .seconds(1))
                let request = StreamRequest(path: "/events?count=6&close_after=2&interval=30&retry=40&stream=\(name)",
                                            reconnection: policy)
                let started = ContinuousClock.now
                var ticks: [String] = []
                for try await event in service.stream(request) {
                    let ms = (ContinuousClock.now - started).milliseconds
                    ticks.append(String(format: "%@ at %.0f ms", event.id, ms))
                }
                return "events \(ticks.joined(separator: ", ")); \(request.attemptCount) connections "
                    + "(the last one a 204: the stream is over)"
            }),
            ("JSON Lines into models as each line arrives, the business code checked per line", {
                let parser = JSONLinesParser(ModelParser(DemoLineItem.self,
                                                         json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "data")))
                let request = StreamRequest(path: "/jsonl?count=5&interval=20&fail_at=5", parser: parser)
                var items: [String] = []
                do {
                    for try await item in service.stream(request) { items.append("#\(item.id) \(item.name)") }
                    throw DemoError.unexpected("line 5's code 7 did not fail the stream")
                } catch let error as NetworkError {
                    return "\(items.joined(separator: ", ")); then line 5: \(error)"
                }
            }),
        ]
    }
}

/// One line of the fixture's JSON Lines export.
struct DemoLineItem: Codable, Sendable {
    var id: Int
    var name: String
}
