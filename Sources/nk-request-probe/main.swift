import Foundation
import NetworkKit

// One JSON GET, as ARCHITECTURE.md walks it, for `scripts/request-path`'s coverage runs:
//   nk-request-probe setup         makes the service and the request, sends nothing
//   nk-request-probe get BASE_URL  the same, then sends the request to BASE_URL/json/small
// A service with a base URL and its default transport; a JSON parser with a business-code check
// and a content key path.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, mode == "setup" || (mode == "get" && arguments.count == 2),
      let base = URL(string: arguments.count == 2 ? arguments[1] : "http://127.0.0.1:9") else {
    FileHandle.standardError.write(Data("usage: nk-request-probe setup | get BASE_URL\n".utf8))
    exit(2)
}

let service = Service(configuration: ServiceConfiguration(baseURL: base))
let request = Request(path: "/json/small", parser: JSONParser(businessCode: BusinessCodeCheck(codeKeyPath: "code"), contentKeyPath: "content"))
if mode == "get" {
    do {
        let content = try await service.send(request)
        print("nk-request-probe: \(content)")
    } catch {
        FileHandle.standardError.write(Data("nk-request-probe: the GET failed: \(error)\n".utf8))
        exit(1)
    }
}
