#if CodeGeneration
import ArgumentParser
import Foundation
import NetworkKitCodegen

/// The tool `swift package generate-model` runs: infers `Codable` structs from a sample
/// response and writes them to `OUTPUT/NAME.swift`.
@main
struct ModelGen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nk-model-gen",
        abstract: "Write Codable structs inferred from a sample JSON response."
    )

    @Option(help: "The sample response (a JSON file).")
    var input: String

    @Option(help: "The name of the outermost struct.")
    var name: String

    @Option(name: .customLong("key-path"), help: "The part of the sample to model, e.g. content/entrance.")
    var keyPath: String?

    @Option(help: "The folder to write NAME.swift into.")
    var output: String = "."

    @Option(help: "public or internal.")
    var access: String = "internal"

    func validate() throws {
        guard access == "public" || access == "internal" else { throw ValidationError("--access must be public or internal") }
        guard !name.isEmpty else { throw ValidationError("--name must not be empty") }
    }

    func run() throws {
        do {
            let input = URL(fileURLWithPath: self.input)
            let sample: String
            do {
                sample = try String(contentsOf: input, encoding: .utf8)
            } catch {
                throw GeneratorError(file: input.path, message: "cannot read the sample: \(error.localizedDescription)")
            }
            let source = try ModelInference.generate(sample: sample, name: name, keyPath: keyPath, access: access,
                                                     fileName: input.path)
            let folder = URL(fileURLWithPath: output, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent(SwiftNames.type(name) + ".swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            print("Wrote \(file.path)")
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
    static func main() { exitForMissingTrait(tool: "nk-model-gen") }
}
#endif
