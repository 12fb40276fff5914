import ArgumentParser
import Foundation
import NetworkKit

/// `nk get URL`: fetches a URL and prints the parsed result.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Fetch a URL and print the parsed result (text, or JSON with --json).",
        discussion: "Any failure exits non-zero with the error on stderr."
    )

    @Argument(help: "The URL to fetch.")
    var url: String

    @Flag(help: "Parse the body as JSON and pretty-print it.")
    var json = false

    @Option(name: .customLong("code-key"), help: "Key path of the business code to check (implies --json).")
    var codeKey: String?

    @Option(name: .customLong("ok"), help: "The business code that means success (default 0).")
    var okValue = "0"

    @Option(name: .customLong("key-path"), help: "Print only the value at this key path, e.g. content/entrance/0 (implies --json).")
    var keyPath: String?

    @Option(name: [.customShort("H"), .customLong("header")], help: "A header to send, 'Name: value'. Repeatable.")
    var headers: [String] = []

    @Option(name: [.customShort("X"), .customLong("method")], help: "HTTP method (GET, POST, PUT, PATCH, DELETE, HEAD).")
    var method = "GET"

    @Option(name: [.customShort("p"), .customLong("param")], help: "A parameter, 'name=value'. Repeatable.")
    var params: [String] = []

    @Option(help: "Timeout in seconds.")
    var timeout: Double = 15

    func run() async throws {
        guard let method = HTTPMethod(rawValue: method.uppercased()) else {
            throw ValidationError("unknown method \(self.method)")
        }
        let headerFields = try parseHeaders()
        let parameters = Dictionary(params.map(Self.splitParameter), uniquingKeysWith: { _, last in last })
        do {
            if json || codeKey != nil || keyPath != nil {
                let parser = JSONParser(checkKeyPath: codeKey.map { JSONKeyPath($0) }, okValue: JSON(codeText: okValue),
                                        contentKeyPath: keyPath.map { JSONKeyPath($0) })
                let request = Request(url: url, method: method, parameters: parameters, headers: headerFields, parser: parser)
                request.timeout = timeout
                print(try render(await Service.shared.send(request)))
            } else {
                let request = Request(url: url, method: method, parameters: parameters, headers: headerFields)
                request.timeout = timeout
                let data = try await Service.shared.send(request)
                FileHandle.standardOutput.write(data)
            }
        } catch {
            FileHandle.standardError.write(Data("nk: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    private func render(_ value: JSON) throws -> String {
        if case .string(let text) = value { return text }
        return String(decoding: try value.serialized(pretty: true), as: UTF8.self)
    }

    private func parseHeaders() throws -> [String: String] {
        var result: [String: String] = [:]
        for header in headers {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw ValidationError("header \"\(header)\" is not 'Name: value'") }
            result[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return result
    }

    private static func splitParameter(_ text: String) -> (String, JSON) {
        let parts = text.split(separator: "=", maxSplits: 1)
        return (String(parts[0]), .string(parts.count > 1 ? String(parts[1]) : ""))
    }
}

extension JSON {
    /// A code typed on the command line: a number when it reads as one, else a string.
    init(codeText: String) {
        if let number = Int64(codeText) { self = .int(number) } else { self = .string(codeText) }
    }
}
