import FixtureServer
import Foundation
import NetworkKit
import NetworkKitNIO

/// `nk demo`: the same requests through both transports.
extension DemoTour {
    var transportSteps: [Step] {
        [
            ("Choosing a transport: 500 JSON GETs, 16 in flight, through URLSession and through SwiftNIO", {
                var rates: [String] = []
                for choice in [TransportChoice.urlsession, .nio] {
                    let service = choice.service(service.configuration)
                    let started = ContinuousClock.now
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<500 {
                            if index >= 16 { try await group.next() }
                            group.addTask {
                                let json = try await service.send(Request(path: "/json/small", parser: JSONParser()))
                                guard json["code"] == 0 else { throw DemoError.unexpected("code \(json["code"] ?? .null)") }
                            }
                        }
                        try await group.waitForAll()
                    }
                    let elapsed = started.duration(to: .now)
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    rates.append(String(format: "%@ %.0f req/s", choice.rawValue, 500 / seconds))
                }
                return rates.joined(separator: ", ") + " (debug build; nk-bench measures release builds)"
            }),
        ]
    }
}
