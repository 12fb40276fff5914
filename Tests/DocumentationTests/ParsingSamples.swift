import Foundation
import NetworkKit

// MARK: - Parsers and key paths

func parsersBuiltIn() {
    _ = Request(path: "/logo.bin")                                   // DataParser: the body as sent
    _ = Request(path: "/readme", parser: StringParser())             // text in the charset of Content-Type
    _ = Request(path: "/feed", parser: JSONParser())                 // the whole JSON document
    _ = Request(path: "/feed", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code", messageKeyPaths: ["message"]),
                                                  contentKeyPath: "content/entrance/0"))
}

func parsersKeyPaths(document: JSON) throws {
    let first = try document.value(at: "content/entrance/0/name")
    let missing = try? document.value(at: "content/nothing")        // nil instead of an error
    print(first, missing ?? "none")
}

func parsersModels() {
    struct Profile: Decodable, Sendable {
        var nick: String
        var level: Int
    }
    _ = Request(path: "/me", parser: ModelParser(Profile.self, json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"),
                                                                               contentKeyPath: "data")))
    _ = Request(path: "/me", parser: ModelParser(modelName: "Profile"))
}

struct AuditEntry: Decodable, Sendable {
    var action: String
    var at: Date
}

func parsersDecoders() -> (ServiceConfiguration, ServiceConfiguration, Request<AuditEntry>) {
    let iso = JSONDecoder()
    iso.dateDecodingStrategy = .iso8601
    var modern = ServiceConfiguration(baseURL: URL(string: "https://api.example.com"))
    modern.jsonDecoder = iso

    let seconds = JSONDecoder()
    seconds.dateDecodingStrategy = .secondsSince1970
    var legacy = ServiceConfiguration(baseURL: URL(string: "https://legacy.example.com"))
    legacy.jsonDecoder = seconds

    let audit = Request(path: "/audit", parser: ModelParser(AuditEntry.self, decoder: iso))   // on either service
    return (modern, legacy, audit)
}

func parsersShape() {
    let shape: JSONShape = ["nick": .string, "level": .number, "items": [["id": .integer]],
                            "avatar": .optional(.string)]
    _ = Request(path: "/me", parser: JSONParser(contentKeyPath: "data", shape: shape))
}

func parsersMapAndReform() {
    struct Names: Reformer {
        func reform(_ entrances: JSON) -> [String] {
            (entrances.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        }
    }
    let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")
    _ = Request(path: "/feed", parser: parser.reformed(by: Names()))
    _ = Request(path: "/feed", parser: parser.map { $0.arrayValue?.count ?? 0 })
}

struct LineCountParser: ResponseParser {
    func parse(_ response: Response) throws -> Int {
        response.data.split(separator: UInt8(ascii: "\n")).count
    }
}

func parsersCustom() {
    _ = Request(path: "/log.txt", parser: LineCountParser())
}
