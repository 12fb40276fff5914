#if CodeGeneration
import ArgumentParser
import Foundation
import NetworkKitCodegen

/// The tool the NetworkKitOpenAPI plugin runs: reads an OpenAPI document (and its configuration)
/// and writes the Swift file of NetworkKit requests and models. A problem in the document is
/// printed as `file:line: error: message` and fails the build.
@main
struct OpenAPIGen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nk-openapi-gen",
        abstract: "Generate NetworkKit requests and Codable models from an OpenAPI 3.0/3.1 document."
    )

    @Option(help: "The OpenAPI document (openapi.yaml or openapi.json).")
    var input: String

    @Option(help: "The configuration (networkkit-openapi.yaml, .yml or .json).")
    var config: String?

    @Option(help: "The Swift file to write.")
    var output: String

    func run() throws {
        do {
            let result = try OpenAPIGenerator.generate(input: URL(fileURLWithPath: input),
                                                       config: config.map { URL(fileURLWithPath: $0) })
            for warning in result.warnings { FileHandle.standardError.write(Data((warning + "\n").utf8)) }
            let url = URL(fileURLWithPath: output)
            // Leave an unchanged file alone, so what depends on it is not rebuilt.
            if (try? String(contentsOf: url, encoding: .utf8)) != result.source {
                try result.source.write(to: url, atomically: true, encoding: .utf8)
            }
        } catch let error as GeneratorError {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode.failure
        }
    }
}
#else
import CodeGenerationTrait

/// Built without the `CodeGeneration` trait: fails with a message that names it.
@main
enum TraitNotEnabled {
    static func main() { exitForMissingTrait(tool: "nk-openapi-gen") }
}
#endif
