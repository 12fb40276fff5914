import Foundation
import FuzzSupport
import NetworkKit

/// The JSON reader, key paths, the business-code check and a model decoded behind a key path,
/// on any bytes: each gives a value or a typed error, never a crash.
@main enum FuzzJSON { static func main() { fuzzMain(fuzzJSON) } }

/// The model the feed fixtures carry at `content/entrance`.
struct Entrance: Decodable {
    var name: String
    var type: Int?
    var tags: [String]?
}

func fuzzJSON(_ data: Data) {
    let response = Response(url: nil, status: 200, data: data)
    let checked = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")
    _ = try? JSONParser().parse(response)
    _ = try? checked.parse(response)
    _ = try? ModelParser([Entrance].self, json: checked).parse(response)
    _ = try? ModelParser(Entrance.self, json: JSONParser(contentKeyPath: "data")).parse(response)
}
