import Foundation
import NetworkKit

/// A model behind a content key path: `ModelParser` (JSON reader, code check, key path, a decoder
/// over the parsed value) against doing it by hand with `JSONSerialization`, taking out the
/// sub-object, writing it out again and decoding it with `JSONDecoder`.
enum ModelBenchmarks {
    struct Entrance: Decodable, Sendable {
        struct Shop: Decodable, Sendable {
            var id: Int
            var name: String
        }
        var id: Int
        var name: String
        var price: Double
        var tags: [String]
        var isFlagship: Bool
        var pic: String?
        var shop: Shop
    }

    static let count = 140

    /// A ~24 KB envelope: `{"code": 0, "message": "ok", "content": {"entrance": [...]}}`.
    static func body() -> Data {
        let entries = (0..<count).map { index in
            let pic = index % 5 == 4 ? "null" : #""https://cdn.example.com/p/\#(index).jpg""#
            return #"{"id": \#(index), "name": "Entry number \#(index)", "price": \#(Double(index) * 1.25), "tags": ["new", "sale", "t\#(index % 7)"], "isFlagship": \#(index % 3 == 0), "pic": \#(pic), "shop": {"id": \#(index % 11), "name": "Shop \#(index % 11)"}}"#
        }
        return Data(#"{"code": 0, "message": "ok", "content": {"entrance": [\#(entries.joined(separator: ", "))]}}"#.utf8)
    }

    static func run() throws {
        let data = body()
        let response = Response(url: nil, statusCode: 200, headers: ["Content-Type": "application/json"], data: data)
        let parser = ModelParser([Entrance].self, json: JSONParser(checkKeyPath: "code", okValue: 0,
                                                                contentKeyPath: "content/entrance"))
        let viaKit: () throws -> Int = { try parser.parse(response).count }
        let byHand: () throws -> Int = {
            guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                  document["code"] as? Int == 0,
                  let content = document["content"] as? [String: Any], let entrance = content["entrance"] else {
                throw BenchError.wrongAnswer
            }
            let sub = try JSONSerialization.data(withJSONObject: entrance)
            return try JSONDecoder().decode([Entrance].self, from: sub).count
        }
        guard try viaKit() == count, try byHand() == count else { throw BenchError.wrongAnswer }
        var ratios: [(Double, Double)] = []
        for _ in 0..<7 {
            var kit = 0.0
            var hand = 0.0
            for block in 0..<10 {
                if block.isMultiple(of: 2) {
                    kit += try time(200, viaKit)
                    hand += try time(200, byHand)
                } else {
                    hand += try time(200, byHand)
                    kit += try time(200, viaKit)
                }
            }
            ratios.append((kit, hand))
        }
        let median = ratios.sorted { $0.0 / $0.1 < $1.0 / $1.1 }[ratios.count / 2]
        print(String(format: "model behind content/entrance, %d KB x2000: ModelParser %.1f µs, by hand (JSONSerialization + sub-object + JSONDecoder) %.1f µs, ratio %.2f",
                     data.count / 1024, median.0 / 2000 * 1e6, median.1 / 2000 * 1e6, median.0 / median.1))
    }

    /// Seconds for `count` runs of `work`.
    private static func time(_ count: Int, _ work: () throws -> Int) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count { _ = try work() }
        return (ContinuousClock.now - start).milliseconds / 1000
    }
}
