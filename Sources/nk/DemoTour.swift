import FixtureServer
import Foundation
import NetworkKit

/// The steps of `nk demo`, each a real request against the fixture server.
struct DemoTour {
    let server: FixtureServer
    let service: Service

    /// A step: its title and the work that returns what to print.
    typealias Step = (title: String, body: () async throws -> String)

    /// Runs every step, prints what each did and how long it took, then which step was the
    /// slowest, and returns how many failed.
    func run() async -> Int {
        var failures = 0
        var slowest: (number: Int, title: String, ms: Double)?
        for (index, step) in (coreSteps + pipelineSteps + transferSteps + streamSteps + webSocketSteps + connectivitySteps + fileSteps + cacheSteps + batchSteps + imageSteps
                              + generatedSteps + transportSteps + errorSteps).enumerated() {
            let started = ContinuousClock.now
            do {
                let outcome = try await step.body()
                let ms = (ContinuousClock.now - started).milliseconds
                print(String(format: "%2d. %@ (%.1f ms)\n    %@", index + 1, step.title, ms, outcome))
                if ms > slowest?.ms ?? -1 { slowest = (index + 1, step.title, ms) }
            } catch {
                failures += 1
                print(String(format: "%2d. %@\n    FAILED: %@", index + 1, step.title, "\(error)"))
            }
        }
        if let slowest {
            print(String(format: "\nSlowest step: %d. %@ (%.1f ms)", slowest.number, slowest.title, slowest.ms))
        }
        return failures
    }

    var coreSteps: [Step] {
        [
            ("Raw data: no parser, the body as sent", {
                let data = try await service.send(Request(path: "/bytes?count=2048"))
                return "GET /bytes?count=2048 → \(data.count) bytes"
            }),
            ("String, decoded in the charset Content-Type names", {
                let text = try await service.send(Request(path: "/text?charset=iso-8859-1", parser: StringParser()))
                return "iso-8859-1 body → \"\(text)\""
            }),
            ("JSON with business-code check (code == 0) and content key path content/entrance", {
                let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance")
                let entrance = try await service.send(Request(path: "/json/feed?quoted=1", parser: parser))
                return "code \"0\" matched okValues [0]; \(entrance.arrayValue?.count ?? 0) entries, first: \(entrance[0]?["name"] ?? nil)"
            }),
            ("A business-code mismatch is a typed error carrying code and message", {
                let parser = JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"))
                let request = Request(path: "/json/feed?code=1001&message=token%20expired", parser: parser)
                let result = await service.result(of: request)
                guard case .failure(.businessCode(let code, let message)) = result else {
                    throw DemoError.unexpected("\(result)")
                }
                return "NetworkError.businessCode(code: \(code), message: \(message ?? "nil"))"
            }),
            ("Model via the default Codable converter", {
                let parser = ModelParser([DemoEntrance].self,
                                         json: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content/entrance"))
                let models = try await service.send(Request(path: "/json/feed", parser: parser))
                return "[DemoEntrance]: " + models.map { "\($0.name) (type \($0.type))" }.joined(separator: ", ")
            }),
            ("Model via a converter registered at startup by name", {
                ModelRegistry.shared.register(name: "Headlines") { json in
                    (json.arrayValue ?? []).compactMap { $0["name"]?.stringValue?.uppercased() }
                }
                let parser = ModelParser(modelName: "Headlines", json: JSONParser(contentKeyPath: "content/entrance"))
                let value = try await service.send(Request(path: "/json/feed", parser: parser))
                return "converter \"Headlines\" returned \(value)"
            }),
            ("Completion handlers run in the order added, each once, on the main actor", {
                let request = Request(path: "/json/small", parser: JSONParser(contentKeyPath: "content/name"))
                let order = await withCheckedContinuation { continuation in
                    let seen = Protected<[Int]>([])
                    for index in 1...3 {
                        request.addCompletionHandler { _, _ in
                            let order = seen.withLock { $0.append(index); return $0 }
                            if index == 3 { continuation.resume(returning: order) }
                        }
                    }
                    service.start(request)
                }
                return "handlers called as \(order); state now \(request.state)"
            }),
            ("Base and CDN URLs switch at runtime", {
                service.configure { $0.cdnURL = URL(string: server.url("/json")) }
                let request = Request(path: "small", parser: JSONParser(contentKeyPath: "content/id"))
                request.useCDN = true
                let id = try await service.send(request)
                return "path \"small\" on the CDN URL \(server.url("/json")) → id \(id)"
            }),
        ]
    }

    var transferSteps: [Step] {
        [
            ("POST parameters as a form body, percent-escaped", {
                let request = Request(path: "/echo", method: .post, parameters: ["user": "ann", "note": "a&b c"],
                                      parser: JSONParser(contentKeyPath: "body"))
                return "server received body \(try await service.send(request))"
            }),
            ("PUT parameters as a JSON body", {
                let request = Request(path: "/echo", method: .put, parameters: ["tags": ["a", "b"], "n": 1],
                                      parser: JSONParser(contentKeyPath: "body"))
                request.body = .json
                return "server received body \(try await service.send(request))"
            }),
            ("Download progress, coalesced (4 MB)", {
                let request = Request(path: "/bytes?count=\(4 << 20)")
                let calls = Protected(0)
                request.addProgressHandler { _, _ in calls.withLock { $0 += 1 } }
                let data = try await service.completion(of: request).get()
                return "\(data.count) bytes, \(calls.snapshot) progress calls"
            }),
            ("200 requests, 16 in flight; the service lets go of each when it finishes", {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 {
                        if index >= 16 { try await group.next() }
                        group.addTask { _ = try await service.send(Request(path: "/json/small", parser: JSONParser())) }
                    }
                    try await group.waitForAll()
                }
                return "all finished; requests still held by the service: \(service.activeRequestCount)"
            }),
        ]
    }
}

/// The model of the demo's feed entries.
struct DemoEntrance: Decodable, Sendable {
    var name: String
    var type: Int
}

enum DemoError: Error {
    case unexpected(String)
}
