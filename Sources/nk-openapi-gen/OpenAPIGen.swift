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

    @Option(help: "A Swift file to write; give several to split the code across them.")
    var output: [String]

    @Flag(help: "Print the number of operations, the warnings by kind and the time taken.")
    var summary = false

    func run() throws {
        do {
            let clock = ContinuousClock()
            let start = clock.now
            let result = try OpenAPIGenerator.generate(input: URL(fileURLWithPath: input),
                                                       config: config.map { URL(fileURLWithPath: $0) }, files: output.count)
            for warning in result.warnings { FileHandle.standardError.write(Data((warning.description + "\n").utf8)) }
            for (path, source) in zip(output, result.files) {
                let url = URL(fileURLWithPath: path)
                // Leave an unchanged file alone, so what depends on it is not rebuilt.
                if (try? String(contentsOf: url, encoding: .utf8)) != source {
                    try source.write(to: url, atomically: true, encoding: .utf8)
                }
            }
            if summary {
                let kinds = Dictionary(grouping: result.warnings, by: \.kind).map { "\($0.key.rawValue) \($0.value.count)" }.sorted()
                let lines = result.files.reduce(0) { $0 + $1.count(where: { $0 == "\n" }) }
                print("\(input): \(result.operationCount) operations (\(result.streamVariantCount) also as streams), \(lines) lines in \(result.files.count) files, "
                      + "\(result.warnings.count) warnings (\(kinds.joined(separator: ", "))), \(clock.now - start) ("
                      + result.phases.map { "\($0.name) \($0.duration)" }.joined(separator: ", ") + ")")
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
