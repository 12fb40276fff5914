import Foundation
import NetworkKit

/// A model behind a content key path, three ways, each producing the same `[Entrance]`:
/// - `ModelParser` (which has `JSONDecoder` read the body once, checking the code and following
///   the key path, and falls back to its JSON step only to report what stood in the way);
/// - Foundation's `JSONDecoder` alone, reading the body once through `KeyPathModel`, a minimal
///   `Decodable` wrapper that checks the code and walks the key path as coding keys in the same pass;
/// - by hand: `JSONSerialization`, the sub-object written out again, then `JSONDecoder`.
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
        let response = Response(url: nil, status: 200, headerFields: [.contentType: "application/json"], data: data)
        let parser = ModelParser([Entrance].self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
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
        let viaFoundation: () throws -> Int = {
            let decoder = JSONDecoder()
            decoder.userInfo[KeyPathRoute.key] = KeyPathRoute(codeKey: "code", okCode: 0, path: ["content", "entrance"])
            return try decoder.decode(KeyPathModel<[Entrance]>.self, from: data).model.count
        }
        guard try viaKit() == count, try byHand() == count, try viaFoundation() == count else { throw BenchError.wrongAnswer }
        let clients = [viaKit, byHand, viaFoundation]
        var rounds: [[Double]] = []
        for _ in 0..<7 {
            var seconds = [Double](repeating: 0, count: clients.count)
            for block in 0..<10 { // rotates which client goes first
                for offset in 0..<clients.count {
                    let index = (block + offset) % clients.count
                    seconds[index] += try time(200, clients[index])
                }
            }
            rounds.append(seconds)
        }
        let kit = rounds.map { $0[0] }, hand = rounds.map { $0[1] }, foundation = rounds.map { $0[2] }
        let byHandRatio = median(zip(kit, hand).map { $0 / $1 })
        let foundationRatio = median(zip(kit, foundation).map { $0 / $1 })
        print(String(format: "model behind content/entrance, %d KB x2000: ModelParser %.1f µs, by hand (JSONSerialization + sub-object + JSONDecoder) %.1f µs, ratio %.2f",
                     data.count / 1024, median(kit) / 2000 * 1e6, median(hand) / 2000 * 1e6, byHandRatio))
        print(String(format: "model behind content/entrance, %d KB x2000: ModelParser %.1f µs, JSONDecoder with a key-path wrapper %.1f µs, ratio ours/Foundation %.2f (median of %d rounds)",
                     data.count / 1024, median(kit) / 2000 * 1e6, median(foundation) / 2000 * 1e6, foundationRatio, rounds.count))
    }

    /// Seconds for `count` runs of `work`.
    private static func time(_ count: Int, _ work: () throws -> Int) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<count { _ = try work() }
        return (ContinuousClock.now - start).milliseconds / 1000
    }
}

/// Where `KeyPathModel` finds its model: the business code's key and the value that means
/// success, and the key path's components. Set in the decoder's `userInfo` under `key`.
struct KeyPathRoute: Sendable {
    static let key = CodingUserInfoKey(rawValue: "nk-bench.key-path-route")!  // a literal: never nil
    var codeKey: String
    var okCode: Int
    var path: [String]
}

/// A document's model at a key path, decoded by `JSONDecoder` in one pass over the body: the
/// business code is checked first, then the path is walked as nested keyed containers.
struct KeyPathModel<Model: Decodable>: Decodable {
    var model: Model

    /// A key named at run time.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard let route = decoder.userInfo[KeyPathRoute.key] as? KeyPathRoute, let last = route.path.last else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no key-path route in userInfo"))
        }
        var container = try decoder.container(keyedBy: Key.self)
        let code = try container.decode(Int.self, forKey: Key(stringValue: route.codeKey))
        guard code == route.okCode else { throw BenchError.wrongAnswer }
        for component in route.path.dropLast() {
            container = try container.nestedContainer(keyedBy: Key.self, forKey: Key(stringValue: component))
        }
        model = try container.decode(Model.self, forKey: Key(stringValue: last))
    }
}
